import * as z from "zod/mini";
import { deferred } from "../schemas/registry";
import { TokenRejected } from "./token-rejected";

// RFC 7519 section 4.1 and docs/api.md part 2: the claims the API reads, each of its type. Only an
// absent claim is absent: one of another type (null included) makes the token malformed, also
// when no setting reads it (iss, aud), so that a token its issuer got wrong never half works.
// Built on the first token read, not at every cold start of the Worker.
const TokenClaims = deferred(() => {
  const numericDate = z.number(); // finite: zod refuses the Infinity that JSON.parse makes of 1e400
  return z.looseObject({
    sub: z.string().check(z.minLength(1)),
    exp: numericDate,
    nbf: z.optional(numericDate),
    iat: z.optional(numericDate),
    iss: z.optional(z.string()),
    aud: z.optional(z.union([z.string(), z.array(z.string())])),
    // Empty means none, as absent: 403 where one is needed.
    customer_id: z.optional(z.string()),
    scope: z.optional(z.string()),
  });
});

export type Claims = z.output<typeof TokenClaims>;

/** Why a required claim that is absent or empty was refused; any other failure is a wrong type. */
const MISSING: Partial<Record<string, string>> = {
  sub: "The access token has no subject (sub).",
  exp: "The access token has no expiry (exp).",
};

/** The claims of a verified payload, or TokenRejected naming the first claim that is wrong. */
export function readClaims(payload: unknown): Claims {
  const result = TokenClaims.safeParse(payload);
  if (result.success) return result.data;
  const claim = result.error.issues[0]?.path[0];
  // Not an object at all (null, an array, a number, a string).
  if (typeof claim !== "string") throw new TokenRejected("The access token is malformed.");
  const value = (payload as Record<string, unknown>)[claim];
  const missing = value === undefined || value === "" ? MISSING[claim] : undefined;
  // `claim` is one of the names above, so the sentence stays fixed ASCII (it goes into a header).
  throw new TokenRejected(missing ?? `The access token's ${claim} claim has the wrong type.`);
}
