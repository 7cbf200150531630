import { fromBase64, toBase64 } from "./base64";
import { keyFor, withAnyKey, type AppSecrets, type Purpose } from "./keys";

// Secrets the service must use again (a webhook endpoint's signing secret, and the stored response
// that showed it) are stored sealed with AES-GCM: a copy of the database alone does not reveal
// them, and a changed ciphertext fails to open. Sealed for one row (associated data naming it, v2),
// a value copied into another row does not open either. v1 values, sealed for no row, still open.
const VERSION = "v2";
const UNBOUND = "v1";

type SealPurpose = Exclude<Purpose, "list-cursors">;
const encoder = new TextEncoder();

/** Seals under APP_SECRET's key, never a previous one: a rotation ends once old values are gone. */
export async function seal(env: AppSecrets, purpose: SealPurpose, row: string, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const params = { name: "AES-GCM", iv, additionalData: encoder.encode(row) };
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt(params, await keyFor(env.APP_SECRET, purpose), encoder.encode(plaintext)),
  );
  return `${VERSION}.${toBase64(iv)}.${toBase64(ciphertext)}`;
}

/** Whether `text` is sealed (JSON never starts so). */
export const isSealed = (text: string): boolean => text.startsWith(`${VERSION}.`) || text.startsWith(`${UNBOUND}.`);

/** A sealed value that no key opens for this row: sealed under a secret since dropped, for another row, or changed. */
class Unreadable extends Error {
  constructor(purpose: SealPurpose) {
    super(`${purpose}: opens under no APP_SECRET or APP_SECRETS_PREVIOUS, or sealed for another row`);
    this.name = "UnreadableSealedValue";
  }
}

/** Opens what `seal` sealed for `row`, with APP_SECRET's key, else with a previous secret's (keys.ts). */
export async function open(env: AppSecrets, purpose: SealPurpose, row: string, sealed: string): Promise<string> {
  const [version, iv, ciphertext] = sealed.split(".");
  if ((version !== VERSION && version !== UNBOUND) || !iv || !ciphertext) throw new Error("not a sealed secret");
  const params = {
    name: "AES-GCM",
    iv: fromBase64(iv),
    ...(version === VERSION && { additionalData: encoder.encode(row) }),
  };
  const plaintext = await withAnyKey(env, purpose, (key) =>
    crypto.subtle.decrypt(params, key, fromBase64(ciphertext)).catch(() => {
      throw new Unreadable(purpose);
    }),
  );
  return new TextDecoder().decode(plaintext);
}
