import { decodeHeader, verify } from "hono/utils/jwt/jwt";
import type { JWTPayload } from "hono/utils/jwt/types";
import { ApiError } from "../errors";

/** Why a token was refused: a fixed ASCII sentence, never text from the token (it goes into a header). */
export class TokenRejected extends Error {
  override readonly name = "TokenRejected";
}

export interface TokenSettings {
  secret?: string;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
}

// The asymmetric algorithms a JWK set may sign with (CONTRACT part 2): the key type each needs, and
// its import parameters.
const JWKS_ALGORITHMS = {
  RS256: { kty: "RSA", crv: undefined, params: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } },
  ES256: { kty: "EC", crv: "P-256", params: { name: "ECDSA", namedCurve: "P-256" } },
} as const;

type JwksAlgorithm = keyof typeof JWKS_ALGORITHMS;

const isJwksAlgorithm = (alg: string): alg is JwksAlgorithm => Object.hasOwn(JWKS_ALGORITHMS, alg);

// Keys live for the isolate's lifetime: importing a key costs more than verifying with it.
let hmacKey: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKeyFor(secret: string): Promise<CryptoKey> {
  if (hmacKey?.secret !== secret) {
    const key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    hmacKey = { secret, key };
  }
  return hmacKey.key;
}

const JWKS_MAX_AGE_MS = 10 * 60_000;
/** With a set in hand, an unknown `kid` (key rotation) or a failed refresh refetches at most this often. */
const JWKS_RETRY_MS = 60_000;
/** With no set at all, a failed fetch is not repeated for this long: requests get 503 at once. */
const JWKS_COLD_RETRY_S = 5;
const JWKS_TIMEOUT_MS = 5_000;

interface KeySet {
  url: string;
  fetchedAt: number;
  keys: Map<string, { jwk: JsonWebKey & { alg?: string }; key?: Promise<CryptoKey> }>;
}

let keySet: KeySet | undefined;
let lastAttempt = { url: "", at: 0 };
let lastFailure = { url: "", at: 0 };
const loading = new Map<string, Promise<KeySet>>();

const keysUnavailable = () =>
  ApiError.of("unavailable", "The token signing keys could not be loaded. Retry the request.", {}, { "Retry-After": String(JWKS_COLD_RETRY_S) });

async function fetchKeySet(url: string): Promise<KeySet> {
  const response = await fetch(url, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`JWKS ${url} answered ${response.status}`);
  const body = (await response.json()) as { keys?: unknown };
  if (!Array.isArray(body.keys)) throw new Error(`JWKS ${url} has no "keys" array`);
  const keys: KeySet["keys"] = new Map();
  for (const jwk of body.keys as (JsonWebKey & { kid?: unknown })[]) {
    if (typeof jwk?.kid === "string") keys.set(jwk.kid, { jwk });
  }
  return { url, fetchedAt: Date.now(), keys };
}

async function loadKeySet(url: string, refresh: boolean): Promise<KeySet> {
  const now = Date.now();
  const cached = keySet?.url === url ? keySet : undefined;
  const age = cached ? now - cached.fetchedAt : Infinity;
  const wanted = age >= JWKS_MAX_AGE_MS || (refresh && age >= JWKS_RETRY_MS);
  const throttled = cached !== undefined && lastAttempt.url === url && now - lastAttempt.at < JWKS_RETRY_MS;
  if (cached && (!wanted || throttled)) return cached;
  if (!cached && lastFailure.url === url && now - lastFailure.at < JWKS_COLD_RETRY_S * 1000) throw keysUnavailable();

  // One fetch per URL at a time, shared by every request that needs it.
  let pending = loading.get(url);
  if (!pending) {
    lastAttempt = { url, at: now };
    pending = fetchKeySet(url).finally(() => loading.delete(url));
    loading.set(url, pending);
  }
  try {
    return (keySet = await pending);
  } catch (error) {
    lastFailure = { url, at: Date.now() };
    // A stale set keeps working while the key server is down; without one nobody can be verified.
    if (cached) return cached;
    console.error(JSON.stringify({ level: "error", error: "jwks_unavailable", cause: String(error) }));
    throw keysUnavailable();
  }
}

async function jwksKeyFor(url: string, kid: string, alg: JwksAlgorithm): Promise<CryptoKey> {
  let entry = (await loadKeySet(url, false)).keys.get(kid);
  entry ??= (await loadKeySet(url, true)).keys.get(kid);
  const { kty, crv, params } = JWKS_ALGORITHMS[alg];
  // The token names its own alg: only a key of that type may verify it. Checked before the import,
  // so a forged header cannot spoil the cached key for genuine tokens.
  const { jwk } = entry ?? {};
  if (!entry || !jwk || jwk.kty !== kty || (crv && jwk.crv !== crv) || (jwk.alg !== undefined && jwk.alg !== alg)) {
    throw new TokenRejected("The access token is signed with an unknown key.");
  }
  entry.key ??= crypto.subtle.importKey("jwk", jwk, params, false, ["verify"]);
  try {
    return await entry.key;
  } catch {
    entry.key = undefined;
    throw new TokenRejected("The access token is signed with an unusable key.");
  }
}

function describe(error: unknown): string {
  switch (error instanceof Error ? error.name : "") {
    case "JwtTokenIssuer":
      return "The access token has the wrong issuer.";
    case "JwtTokenAudience":
    case "JwtPayloadRequiresAud":
      return "The access token is not meant for this API.";
    case "JwtTokenSignatureMismatched":
      return "The access token signature does not match.";
    default:
      return "The access token is malformed.";
  }
}

/** Tolerated lead of the issuer's clock over ours, for `nbf` and `iat` (RFC 7519's "small leeway"). */
export const CLOCK_SKEW_SECONDS = 30;

// `exp` gets no leeway: it is the issuer's limit, and an expired token must be refused (CONTRACT).
function checkTimes({ exp, nbf, iat }: JWTPayload): void {
  const now = Math.floor(Date.now() / 1000);
  if (typeof exp !== "number" || !Number.isFinite(exp)) throw new TokenRejected("The access token has no expiry (exp).");
  if (exp <= now) throw new TokenRejected("The access token has expired.");
  if (nbf !== undefined && !(typeof nbf === "number" && nbf <= now + CLOCK_SKEW_SECONDS)) throw new TokenRejected("The access token is not valid yet.");
  if (iat !== undefined && !(typeof iat === "number" && iat <= now + CLOCK_SKEW_SECONDS)) throw new TokenRejected("The access token was issued in the future.");
}

/**
 * Verifies a bearer token: HS256 with the shared secret, or RS256/ES256 with a key of the JWK set.
 * Every other algorithm, `none` included, is refused. Unlike hono's verifier, `exp` is required.
 * `nbf` and `iat` get CLOCK_SKEW_SECONDS of leeway.
 */
export async function verifyToken(token: string, settings: TokenSettings): Promise<JWTPayload> {
  let alg: string;
  let kid: unknown;
  try {
    ({ alg, kid } = decodeHeader(token));
  } catch {
    throw new TokenRejected("The access token is malformed.");
  }

  let key: CryptoKey;
  if (alg === "HS256" && settings.secret) {
    key = await hmacKeyFor(settings.secret);
  } else if (isJwksAlgorithm(alg) && settings.jwksUrl && typeof kid === "string") {
    key = await jwksKeyFor(settings.jwksUrl, kid, alg);
  } else {
    throw new TokenRejected("The access token is signed with an algorithm that is not accepted.");
  }

  let payload: JWTPayload;
  try {
    payload = await verify(token, key, {
      alg: alg as "HS256",
      // Times are checked below, with leeway and with `exp` required.
      exp: false,
      nbf: false,
      iat: false,
      ...(settings.issuer ? { iss: settings.issuer } : {}),
      ...(settings.audience ? { aud: settings.audience } : {}),
    });
  } catch (error) {
    throw new TokenRejected(describe(error));
  }
  checkTimes(payload);
  return payload;
}
