import { readClaims, type Claims } from "./claims";
import { decodeJws, verifyJws, type Jws } from "./jws";
import { isJwksAlgorithm, jwksKeyFor } from "./jwks";
import { TokenRejected } from "./token-rejected";

export interface TokenSettings {
  secret?: string;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
}

// Keys live for the isolate's lifetime: importing a key costs more than verifying with it.
let hmacKey: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKeyFor(secret: string): Promise<CryptoKey> {
  if (hmacKey?.secret !== secret) {
    const key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    hmacKey = { secret, key };
  }
  return hmacKey.key;
}

/** Tolerated lead of the issuer's clock over ours, for `nbf` and `iat` (RFC 7519's "small leeway"). */
const CLOCK_SKEW_SECONDS = 30;

// `exp` gets no leeway: it is the issuer's limit, and an expired token must be refused (docs/api.md).
function checkTimes({ exp, nbf, iat }: Claims): void {
  const now = Math.floor(Date.now() / 1000);
  if (exp <= now) throw new TokenRejected("The access token has expired.");
  if (nbf !== undefined && nbf > now + CLOCK_SKEW_SECONDS)
    throw new TokenRejected("The access token is not valid yet.");
  if (iat !== undefined && iat > now + CLOCK_SKEW_SECONDS)
    throw new TokenRejected("The access token was issued in the future.");
}

// A client sends the same token with every request until it expires, so a verified token's claims
// are kept per isolate, by its text and the settings that accepted it, for at most a minute (a
// JWK set is kept ten): a request with one pays the time checks, not the signature, the decoding
// and the claims' schema. Bounded; the oldest goes first.
const VERIFIED_FOR_MS = 60_000;
const VERIFIED_MAX = 1000;
const verified = new Map<string, { settings: TokenSettings; claims: Claims; until: number }>();

const sameSettings = (a: TokenSettings, b: TokenSettings) =>
  a.secret === b.secret && a.jwksUrl === b.jwksUrl && a.issuer === b.issuer && a.audience === b.audience;

/**
 * Verifies a bearer token: HS256 with the shared secret, or RS256/ES256 with a key of the JWK set.
 * Every other algorithm, `none` included, is refused. Then `iss` and `aud` when set, and `exp` is
 * required and every claim the API reads must have its type (auth/claims.ts). `nbf` and `iat` get
 * CLOCK_SKEW_SECONDS of leeway.
 */
export async function verifyToken(token: string, settings: TokenSettings): Promise<Claims> {
  const known = verified.get(token);
  if (known && known.until > Date.now() && sameSettings(known.settings, settings)) {
    checkTimes(known.claims);
    return known.claims;
  }
  const claims = await verifySignedToken(token, settings);
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(token, { settings, claims, until: Date.now() + VERIFIED_FOR_MS });
  return claims;
}

async function verifySignedToken(token: string, settings: TokenSettings): Promise<Claims> {
  let jws: Jws;
  try {
    jws = decodeJws(token);
  } catch {
    throw new TokenRejected("The access token is malformed.");
  }
  const { alg, kid } = jws.header;

  let key: CryptoKey;
  if (alg === "HS256" && settings.secret) {
    key = await hmacKeyFor(settings.secret);
  } else if (typeof alg === "string" && isJwksAlgorithm(alg) && settings.jwksUrl && typeof kid === "string") {
    key = await jwksKeyFor(settings.jwksUrl, kid, alg);
  } else {
    throw new TokenRejected("The access token is signed with an algorithm that is not accepted.");
  }
  if (!(await verifyJws(jws, alg, key))) throw new TokenRejected("The access token signature does not match.");

  // The payload is read only once it is known to be the issuer's.
  const payload = jws.payload as { iss?: unknown; aud?: unknown } | null;
  if (settings.issuer && payload?.iss !== settings.issuer)
    throw new TokenRejected("The access token has the wrong issuer.");
  const audiences = Array.isArray(payload?.aud) ? payload.aud : [payload?.aud];
  if (settings.audience && !audiences.includes(settings.audience))
    throw new TokenRejected("The access token is not meant for this API.");
  const claims = readClaims(payload);
  checkTimes(claims);
  return claims;
}
