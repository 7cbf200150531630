import { vi } from "vitest";

/**
 * Stands in for the world the Worker talks to (webhook receivers, Google's token and FCM endpoints):
 * every fetch the Worker makes in this isolate is answered by `answer` and recorded with its body.
 */
export function outbound(answer: (request: Request, body: string) => Response | Promise<Response>) {
  const requests: { url: string; method: string; headers: Record<string, string>; body: string }[] = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init as RequestInit);
    const body = new TextDecoder().decode(await request.arrayBuffer());
    requests.push({ url: request.url, method: request.method, headers: Object.fromEntries(request.headers), body });
    return answer(request, body);
  });
  return { requests, restore: () => spy.mockRestore() };
}

const pem = (der: ArrayBuffer, label: string) =>
  `-----BEGIN ${label}-----\n` +
  `${btoa(String.fromCharCode(...new Uint8Array(der))).replace(/.{64}/g, "$&\n")}\n` +
  `-----END ${label}-----\n`;

/** A Google service account with a fresh RSA key, as FCM_SERVICE_ACCOUNT holds it, and its public key. */
export async function serviceAccount(tokenUri = "https://oauth2.test/token") {
  const { privateKey, publicKey } = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const privatePem = pem((await crypto.subtle.exportKey("pkcs8", privateKey)) as ArrayBuffer, "PRIVATE KEY");
  const json = JSON.stringify({
    type: "service_account",
    client_email: "push@project.iam.gserviceaccount.com",
    private_key: privatePem,
    token_uri: tokenUri,
  });
  return { json, publicKey };
}

const fromBase64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));

/** The claims of an RS256 JWT if `publicKey` verifies it, else undefined. */
export async function verifiedClaims(jwt: string, publicKey: CryptoKey): Promise<Record<string, unknown> | undefined> {
  const [header, payload, signature] = jwt.split(".");
  const valid = await crypto.subtle.verify(
    "RSASSA-PKCS1-v1_5",
    publicKey,
    fromBase64url(signature!),
    new TextEncoder().encode(`${header}.${payload}`),
  );
  return valid ? JSON.parse(new TextDecoder().decode(fromBase64url(payload!))) : undefined;
}
