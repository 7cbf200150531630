import { ApiError } from "../errors";
import { TokenRejected } from "./token-rejected";

// The asymmetric algorithms a JWK set may sign with (docs/api.md part 2): the key type each needs, and
// its import parameters.
const JWKS_ALGORITHMS = {
  RS256: { kty: "RSA", crv: undefined, params: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } },
  ES256: { kty: "EC", crv: "P-256", params: { name: "ECDSA", namedCurve: "P-256" } },
} as const;

type JwksAlgorithm = keyof typeof JWKS_ALGORITHMS;

export const isJwksAlgorithm = (alg: string): alg is JwksAlgorithm => Object.hasOwn(JWKS_ALGORITHMS, alg);

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
  ApiError.of(
    "unavailable",
    "The token signing keys could not be loaded. Retry the request.",
    {},
    { "Retry-After": String(JWKS_COLD_RETRY_S) },
  );

async function fetchKeySet(url: string): Promise<KeySet> {
  const response = await fetch(url, {
    headers: { Accept: "application/json" },
    signal: AbortSignal.timeout(JWKS_TIMEOUT_MS),
  });
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

/** The key of the JWK set `url` that may verify a token with this `kid` and `alg`. */
export async function jwksKeyFor(url: string, kid: string, alg: JwksAlgorithm): Promise<CryptoKey> {
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
