import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { BOOKMARK_HEADER } from "./d1-bookmark";
import type { AppEnv } from "../env";

export const REQUEST_ID_HEADER = "X-Request-Id";
/** A client's own request id that is kept (and documented: openapi/document.ts); others are replaced. */
export const SANE_REQUEST_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;

/**
 * Around every request: its id, the headers every response carries, the D1 bookmark, and one JSON
 * log line (never a token, a token value or a body).
 */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  const sent = c.req.header(REQUEST_ID_HEADER);
  const requestId = sent && SANE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
  c.set("requestId", requestId);
  // Set before the response exists, so every response is created with them (routes may override
  // Cache-Control); c.header() on a finished response would copy the whole response each time.
  c.header(REQUEST_ID_HEADER, requestId);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Cache-Control", "no-store");

  await next();

  // The session's bookmark is known only after its last query.
  const db = c.get("db");
  const bookmark = db?.bookmark();
  if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);

  const route = routePath(c, -1);
  console.log(
    JSON.stringify({
      request_id: requestId,
      method: c.req.method,
      route: route === "/*" ? null : route,
      status: c.res.status,
      duration_ms: Date.now() - started,
      sub: c.get("principal")?.sub ?? null,
      replayed: c.res.headers.has("Idempotent-Replayed") || undefined,
      d1_queries: db?.usage.queries ?? 0,
      d1_rows_read: db?.usage.rowsRead ?? 0,
      d1_rows_written: db?.usage.rowsWritten ?? 0,
    }),
  );
};
