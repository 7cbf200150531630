import { fromBase64, toBase64url } from "../crypto/base64";
import type { PushConfig } from "./push-config";

// OAuth 2 access token of a service account by the JWT-bearer grant (RFC 7523): an RS256 assertion
// signed with WebCrypto, exchanged at the token URL, and kept until shortly before it expires, so
// that a batch of pushes asks Google once, not once per message.
const SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
const LIFETIME_S = 3600;
const EARLY_S = 60;

// The token, or the request for it: pushes sent at once share one request.
let cached: { for: string; token: Promise<string>; expiresAt: number } | undefined;
let signingKey: { pem: string; key: Promise<CryptoKey> } | undefined;

const encode = (value: unknown) => toBase64url(new TextEncoder().encode(JSON.stringify(value)));

function keyOf(pem: string): Promise<CryptoKey> {
  if (signingKey?.pem !== pem) {
    // A key from .dev.vars may keep its line breaks escaped as `\n`.
    const body = pem
      .replace(/\\n/g, "\n")
      .replace(/-----[^-]+-----/g, "")
      .replace(/\s+/g, "");
    signingKey = {
      pem,
      key: crypto.subtle.importKey("pkcs8", fromBase64(body), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
        "sign",
      ]),
    };
  }
  return signingKey.key;
}

async function assertion(config: PushConfig, now: number): Promise<string> {
  const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode({
    iss: config.clientEmail,
    scope: SCOPE,
    aud: config.tokenUrl,
    iat: now,
    exp: now + LIFETIME_S,
  })}`;
  const signature = await crypto.subtle.sign(
    "RSASSA-PKCS1-v1_5",
    await keyOf(config.privateKey),
    new TextEncoder().encode(unsigned),
  );
  return `${unsigned}.${toBase64url(new Uint8Array(signature))}`;
}

/** Forgets the cached token (FCM refused it). */
export const forgetAccessToken = (): void => void (cached = undefined);

export function accessToken(config: PushConfig): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const id = `${config.tokenUrl}\n${config.clientEmail}`;
  if (cached?.for === id && cached.expiresAt > now) return cached.token;
  const entry: NonNullable<typeof cached> = {
    for: id,
    expiresAt: now + LIFETIME_S - EARLY_S,
    token: Promise.resolve(""),
  };
  entry.token = requestToken(config, now).then(
    ({ token, expiresIn }) => ((entry.expiresAt = now + expiresIn - EARLY_S), token),
    (error: unknown) => {
      // A failed request is not kept: the next push asks again.
      if (cached === entry) forgetAccessToken();
      throw error;
    },
  );
  cached = entry;
  return entry.token;
}

async function requestToken(config: PushConfig, now: number): Promise<{ token: string; expiresIn: number }> {
  const response = await fetch(config.tokenUrl, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion: await assertion(config, now),
    }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
  const { access_token: token, expires_in: expiresIn } = (await response.json()) as {
    access_token?: unknown;
    expires_in?: unknown;
  };
  if (typeof token !== "string" || typeof expiresIn !== "number")
    throw new Error("token endpoint answered no access_token");
  return { token, expiresIn };
}
