import { fromBase64, toBase64 } from "./base64";

// Secrets the service must use again (a webhook endpoint's signing secret, and the stored response
// that showed it) are stored sealed with AES-GCM: a copy of the database alone does not reveal
// them, and a changed ciphertext fails to open.
const VERSION = "v1";

export async function seal(key: CryptoKey, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext)));
  return `${VERSION}.${toBase64(iv)}.${toBase64(ciphertext)}`;
}

/** Whether `text` is sealed (JSON never starts so). */
export const isSealed = (text: string): boolean => text.startsWith(`${VERSION}.`);

export async function open(key: CryptoKey, sealed: string): Promise<string> {
  const [version, iv, ciphertext] = sealed.split(".");
  if (version !== VERSION || !iv || !ciphertext) throw new Error("not a sealed secret");
  const plaintext = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(iv) }, key, fromBase64(ciphertext));
  return new TextDecoder().decode(plaintext);
}
