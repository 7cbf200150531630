// The Worker's own keys, each derived from the secret APP_SECRET (HKDF-SHA-256) for one purpose,
// so that no key serves two. Derived once per isolate and secret.

export type Purpose = "webhook-secrets" | "stored-responses" | "list-cursors";

/** The secrets the keys come from (the Worker's bindings). */
export interface AppSecrets {
  APP_SECRET?: string;
  /** Comma-separated: secrets APP_SECRET replaced, still good to open and verify with, never to seal or sign. */
  APP_SECRETS_PREVIOUS?: string;
}

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
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: encoder.encode(`voucher-billing/${purpose}`) },
    master,
    algorithm,
    false,
    usages,
  );
}

export function keyFor(secret: string | undefined, purpose: Purpose): Promise<CryptoKey> {
  if (!secret) return Promise.reject(new MissingAppSecret());
  const id = `${purpose}\n${secret}`;
  let key = cache.get(id);
  if (!key) cache.set(id, (key = derive(secret, purpose)));
  return key;
}

/**
 * `use` with APP_SECRET's key and, only if that throws, with each of APP_SECRETS_PREVIOUS's keys in
 * turn: what was sealed or signed before a rotation still opens, and the current secret costs no
 * more than before. When none succeeds, the current key's error is thrown.
 */
export async function withAnyKey<T>(
  env: AppSecrets,
  purpose: Purpose,
  use: (key: CryptoKey) => Promise<T>,
): Promise<T> {
  const current = await keyFor(env.APP_SECRET, purpose);
  try {
    return await use(current);
  } catch (error) {
    for (const previous of env.APP_SECRETS_PREVIOUS?.split(",") ?? []) {
      if (!previous.trim()) continue;
      try {
        return await use(await keyFor(previous.trim(), purpose));
      } catch {
        // Not this one either.
      }
    }
    throw error;
  }
}
