import type { Context } from "hono";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A JSON response with the content type of CONTRACT part 1; `body` is already serialized. */
export function jsonResponse(c: Context, status: number, body: string, headers: Record<string, string> = {}): Response {
  c.header("Content-Type", JSON_CONTENT_TYPE);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.body(body, status as 200);
}
