import type { Context } from "hono";
import type { AppEnv, Bindings } from "../env";
import { ApiError } from "../errors";
import type { AccessRequirement, Principal, Scope } from "./principal";
import { TokenRejected } from "./token-rejected";
import { verifyToken, type TokenSettings } from "./tokens";

const REALM = 'Bearer realm="voucher-billing-api"';
const AUTHORIZATION = { header: "Authorization" };

// RFC 6750 section 3: no error attribute when no token was sent, `invalid_token` when one was refused.
const unauthorized = (detail: string, tokenSent: boolean): ApiError =>
  ApiError.of("unauthorized", detail, AUTHORIZATION, {
    // `detail` is one of our fixed ASCII sentences, so it is safe as error_description.
    "WWW-Authenticate": tokenSent ? `${REALM}, error="invalid_token", error_description="${detail}"` : REALM,
  });

const forbidden = (detail: string, scope?: Scope): ApiError =>
  ApiError.of(
    "forbidden",
    detail,
    AUTHORIZATION,
    scope ? { "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"` } : {},
  );

function tokenSettings(env: Bindings): TokenSettings {
  if (!env.JWT_SECRET && !env.JWT_JWKS_URL) throw new Error("Neither JWT_SECRET nor JWT_JWKS_URL is configured");
  return { secret: env.JWT_SECRET, jwksUrl: env.JWT_JWKS_URL, issuer: env.JWT_ISSUER, audience: env.JWT_AUDIENCE };
}

/** Verifies the bearer token and checks the scope before the route looks anything up. */
export async function authenticate(c: Context<AppEnv>, requirement: AccessRequirement): Promise<void> {
  const header = c.req.header("Authorization");
  const match = header?.match(/^Bearer(?:\s+(.*))?$/i);
  if (!match) throw unauthorized("This endpoint needs an Authorization: Bearer <token> header.", false);

  let claims: Awaited<ReturnType<typeof verifyToken>>;
  try {
    claims = await verifyToken(match[1]?.trim() ?? "", tokenSettings(c.env));
  } catch (error) {
    if (error instanceof TokenRejected) throw unauthorized(error.message, true);
    throw error;
  }
  const principal: Principal = {
    sub: claims.sub,
    customerId: claims.customer_id || null,
    scopes: new Set(claims.scope?.split(" ").filter(Boolean)),
  };
  c.set("principal", principal); // set before the checks, so the request log names who was refused
  const alternative = requirement.alternative !== undefined && principal.scopes.has(requirement.alternative);
  if (!principal.scopes.has(requirement.scope) && !alternative)
    throw forbidden(`The access token lacks the scope ${requirement.scope}.`, requirement.scope);
  if (requirement.tenant && principal.customerId === null)
    throw forbidden("The access token names no customer (customer_id).");
}
