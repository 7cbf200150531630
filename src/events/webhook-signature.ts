import { fromBase64, toBase64 } from "../crypto/base64";

// Standard Webhooks (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of its key
// bytes; a delivery is signed `v1,` + base64 HMAC-SHA-256 of `<id>.<timestamp>.<body>`. Written here
// in a few lines of WebCrypto rather than bundling the `standardwebhooks` package; the tests verify
// every signature with that package, as a receiver would.
const PREFIX = "whsec_";
const SECRET_BYTES = 32;

export const newWebhookSecret = (): string => PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));

export async function signWebhook(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.slice(PREFIX.length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(signature))}`;
}
