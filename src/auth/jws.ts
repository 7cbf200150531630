import { fromBase64url } from "../crypto/base64";

// A compact JWS (RFC 7515) as the bearer tokens come: header.payload.signature, each base64url.
// Verified with WebCrypto directly: hono's verifier supports every JOSE algorithm and cost 2 KiB of
// gzip in a bundle that accepts three (auth/tokens.ts decides which key and algorithm).

export interface Jws {
  header: { alg?: unknown; kid?: unknown };
  payload: unknown;
  signingInput: Uint8Array;
  signature: Uint8Array;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const readJson = (part: string): unknown => JSON.parse(decoder.decode(fromBase64url(part)));

/** The token's parts, decoded but not verified; throws when it is not a compact JWS with a JSON header. */
export function decodeJws(token: string): Jws {
  const [header, payload, signature, extra] = token.split(".");
  if (!header || payload === undefined || signature === undefined || extra !== undefined) throw new Error("not a JWS");
  const decoded = readJson(header);
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) throw new Error("not a JWS header");
  return {
    header: decoded,
    payload: readJson(payload),
    signingInput: new TextEncoder().encode(`${header}.${payload}`),
    signature: fromBase64url(signature),
  };
}

/** WebCrypto's verify parameters of the accepted algorithms (ECDSA signatures are r ‖ s in both). */
const VERIFY = {
  HS256: "HMAC",
  RS256: "RSASSA-PKCS1-v1_5",
  ES256: { name: "ECDSA", hash: "SHA-256" },
} as const;

type JwsAlgorithm = keyof typeof VERIFY;

export const verifyJws = (jws: Jws, alg: JwsAlgorithm, key: CryptoKey): Promise<boolean> =>
  crypto.subtle.verify(VERIFY[alg], key, jws.signature, jws.signingInput);
