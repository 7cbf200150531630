import type { MiddlewareHandler } from "hono";
import { cors as honoCors } from "hono/cors";
import { BOOKMARK_HEADER } from "./d1-bookmark";
import type { AppEnv } from "../env";

let configured: { origins: string; handler: MiddlewareHandler | undefined } | undefined;

function corsFor(origins: string): MiddlewareHandler | undefined {
  const allowed = origins
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  if (allowed.length === 0) return undefined;
  return honoCors({
    origin: allowed,
    allowMethods: ["GET", "POST", "PUT", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id", BOOKMARK_HEADER],
    exposeHeaders: ["X-Request-Id", BOOKMARK_HEADER, "Idempotent-Replayed", "Retry-After", "WWW-Authenticate", "Allow"],
    maxAge: 600,
  });
}

/** CORS for the origins in CORS_ALLOWED_ORIGINS, off when it is empty; preflights need no token. */
export const cors: MiddlewareHandler<AppEnv> = (c, next) => {
  const origins = c.env.CORS_ALLOWED_ORIGINS ?? "";
  if (configured?.origins !== origins) configured = { origins, handler: corsFor(origins) };
  return configured.handler ? configured.handler(c, next) : next();
};
