import type { Context } from "hono";
import { ApiError } from "../errors";

export const BOOKMARK_HEADER = "x-d1-bookmark";
// Bookmarks are opaque (today 8-8-8-32 hex digits); only what cannot be one is refused here, with
// a 400, rather than passed on to D1, whose refusal would read as an outage (503).
const BOOKMARK_PATTERN = /^[\x21-\x7e]{1,256}$/;

/**
 * Where the request's D1 session starts (read replication, Sessions API): reads may be served by
 * the nearest replica unless the client sends the bookmark of its last response, which makes any
 * replica catch up to it first; writes always start at the primary.
 */
export function sessionStart(c: Context): D1SessionBookmark | D1SessionConstraint {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return "first-primary";
  const bookmark = c.req.header(BOOKMARK_HEADER);
  if (bookmark === undefined) return "first-unconstrained";
  if (!BOOKMARK_PATTERN.test(bookmark)) {
    throw ApiError.of("invalid_parameter", `${BOOKMARK_HEADER} must be a bookmark from an earlier response.`, {
      header: BOOKMARK_HEADER,
    });
  }
  return bookmark;
}
