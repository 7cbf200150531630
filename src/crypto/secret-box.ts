import { fromBase64, toBase64 } from "./base64";
import { keyFor, withAnyKey, type AppSecrets, type Purpose } from "./keys";

// Secrets the service must use again (a webhook endpoint's signing secret, and the stored response
// that showed it) are stored sealed with AES-GCM: a copy of the database alone does not reveal
// them, and a changed ciphertext fails to open.
const VERSION = "v1";

type SealPurpose = Exclude<Purpose, "list-cursors">;

/** Seals under APP_SECRET's key, never a previous one: a rotation ends once old values are gone. */
export async function seal(env: AppSecrets, purpose: SealPurpose, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await keyFor(env.APP_SECRET, purpose), new TextEncoder().encode(plaintext)));
  return `${VERSION}.${toBase64(iv)}.${toBase64(ciphertext)}`;
}

/** Whether `text` is sealed (JSON never starts so). */
export const isSealed = (text: string): boolean => text.startsWith(`${VERSION}.`);

/** A sealed value that no key opens: sealed under a secret since dropped, or changed. */
class Unreadable extends Error {
  constructor(purpose: SealPurpose) {
    super(`a sealed value (${purpose}) opens under neither APP_SECRET nor APP_SECRETS_PREVIOUS`);
    this.name = "UnreadableSealedValue";
  }
}

/** Opens with APP_SECRET's key, else with a previous secret's (keys.ts). */
export async function open(env: AppSecrets, purpose: SealPurpose, sealed: string): Promise<string> {
  const [version, iv, ciphertext] = sealed.split(".");
  if (version !== VERSION || !iv || !ciphertext) throw new Error("not a sealed secret");
  const params = { name: "AES-GCM", iv: fromBase64(iv) };
  const plaintext = await withAnyKey(env, purpose, (key) =>
    crypto.subtle.decrypt(params, key, fromBase64(ciphertext)).catch(() => {
      throw new Unreadable(purpose);
    }),
  );
  return new TextDecoder().decode(plaintext);
}
