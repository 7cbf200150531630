import type { Context } from "hono";

// docs/api.md part 1.
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

declare const bodyType: unique symbol;

/**
 * A response whose JSON body is a `T`. Handlers return one, and a route's handler type demands the
 * body type of the route's success schema, so a handler that answers anything else does not compile.
 */
export type Reply<T> = Response & { readonly [bodyType]: T };

/** A JSON response whose body is already serialized (a stored or database-filled body). */
export function sendJson(c: Context, status: number, text: string, headers: Record<string, string> = {}): Response {
  c.header("Content-Type", JSON_CONTENT_TYPE);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.body(text, status as 200);
}

/** `text` holds a serialized `T` (the caller serialized a `T` earlier), or nothing for a 204. */
export const replyText = <T>(c: Context, status: number, text: string | null): Reply<T> =>
  (text === null ? c.body(null, status as 204) : sendJson(c, status, text)) as Reply<T>;

export const reply = <T>(c: Context, status: number, body: T): Reply<T> =>
  replyText<T>(c, status, JSON.stringify(body));

export const replyHtml = (c: Context, status: number, html: string): Reply<string> =>
  c.html(html, status as 200) as Reply<string>;

/** A response of another media type than JSON (a document), or a 304, with its own headers. */
export const replyBody = (
  c: Context,
  status: 200 | 304,
  body: string | Uint8Array | ReadableStream | null,
  headers: Record<string, string>,
): Reply<string> => c.body(body as string, status as 200, headers) as Response as Reply<string>;
