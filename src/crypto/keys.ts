// The Worker's own keys, each derived from the secret APP_SECRET (HKDF-SHA-256) for one purpose,
// so that no key serves two. Derived once per isolate and secret.

type Purpose = "webhook-secrets" | "stored-responses" | "list-cursors";

const USES: Record<Purpose, { algorithm: SubtleCryptoImportKeyAlgorithm; usages: string[] }> = {
  "webhook-secrets": { algorithm: { name: "AES-GCM", length: 256 }, usages: ["encrypt", "decrypt"] },
  "stored-responses": { algorithm: { name: "AES-GCM", length: 256 }, usages: ["encrypt", "decrypt"] },
  "list-cursors": { algorithm: { name: "HMAC", hash: "SHA-256", length: 256 }, usages: ["sign"] },
};

const cache = new Map<string, Promise<CryptoKey>>();
const encoder = new TextEncoder();

/** APP_SECRET is missing: the request that needs a key fails (500) and the log names the variable. */
class MissingAppSecret extends Error {
  constructor() {
    super("APP_SECRET is not configured");
    this.name = "MissingAppSecret";
  }
}

async function derive(secret: string, purpose: Purpose): Promise<CryptoKey> {
  const master = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  const { algorithm, usages } = USES[purpose];
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: encoder.encode(`voucher-billing/${purpose}`) }, master, algorithm, false, usages);
}

export function keyFor(secret: string | undefined, purpose: Purpose): Promise<CryptoKey> {
  if (!secret) return Promise.reject(new MissingAppSecret());
  const id = `${purpose}\n${secret}`;
  let key = cache.get(id);
  if (!key) cache.set(id, (key = derive(secret, purpose)));
  return key;
}
