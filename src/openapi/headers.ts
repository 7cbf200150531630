import { BOOKMARK_HEADER } from "../http/d1-bookmark";
import { keyed } from "../http/mount";
import type { RouteSpec } from "../http/route";

const text = { type: "string" } as const;
const seconds = { type: "integer", minimum: 1 } as const;

/**
 * The response headers a client can rely on, declared once (components.headers) and referenced by
 * each response that carries them. `required`: every such response has it.
 */
export const HEADERS = {
  RequestId: {
    description:
      "The request's id, also in the log line: the client's own X-Request-Id when it sent a sane one (1-128 of " +
      "`[A-Za-z0-9_.:@-]`), else a new UUID.",
    required: true,
    schema: text,
  },
  NoSniff: { description: "Always `nosniff`.", required: true, schema: { type: "string", const: "nosniff" } },
  NoStore: {
    description: "`no-store`: responses of the API are not cached.",
    required: true,
    schema: { type: "string", const: "no-store" },
  },
  Bookmark: {
    description:
      "The D1 session's latest bookmark; send it back as x-d1-bookmark to read your own writes from any replica.",
    required: true,
    schema: text,
  },
  BookmarkIfUsed: {
    description: "The D1 session's latest bookmark, when the request reached the database.",
    schema: text,
  },
  IdempotentReplayed: {
    description:
      "`true` when this is the stored response to an earlier request with the same Idempotency-Key; nothing was " +
      "written again.",
    schema: { type: "string", const: "true" },
  },
  Challenge: {
    description:
      'RFC 6750 challenge: `Bearer realm="…"`, with `error="invalid_token"` when a token was sent and refused.',
    required: true,
    schema: text,
  },
  ScopeChallenge: {
    description:
      '`Bearer realm="…", error="insufficient_scope", scope="…"` when the token lacks the scope ' +
      "(not when it lacks a customer_id).",
    schema: text,
  },
  RetryAfter: { description: "Seconds to wait before retrying.", required: true, schema: seconds },
  Location: {
    description: "The absolute URL of what was accepted (of the first, when it was several).",
    required: true,
    schema: { type: "string", format: "uri" },
  },
};

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

// Error responses that come after the request's D1 session opened, and so may carry its bookmark.
const AFTER_DATABASE = new Set([404, 409, 422, 500, 503]);

const BY_STATUS: Partial<Record<number, Record<string, { $ref: string }>>> = {
  202: { Location: ref("Location") },
  401: { "WWW-Authenticate": ref("Challenge") },
  403: { "WWW-Authenticate": ref("ScopeChallenge") },
  429: { "Retry-After": ref("RetryAfter") },
  503: { "Retry-After": ref("RetryAfter") },
};

/**
 * The headers of `spec`'s response with `status`, its success or one of its errors
 * (http/request-context.ts sets the first three).
 */
export function responseHeaders(spec: RouteSpec, status: number): Record<string, unknown> {
  const success = status === spec.success.status;
  const fixed = Object.entries((success && spec.success.headers) || {}).map(([name, value]) => [
    name,
    { description: `Always \`${value}\`.`, required: true, schema: { type: "string", const: value } },
  ]);
  return {
    "X-Request-Id": ref("RequestId"),
    "X-Content-Type-Options": ref("NoSniff"),
    "Cache-Control": ref("NoStore"),
    ...(spec.access && success ? { [BOOKMARK_HEADER]: ref("Bookmark") } : {}),
    ...(spec.access && AFTER_DATABASE.has(status) ? { [BOOKMARK_HEADER]: ref("BookmarkIfUsed") } : {}),
    ...(success && keyed(spec) ? { "Idempotent-Replayed": ref("IdempotentReplayed") } : {}),
    ...BY_STATUS[status],
    ...Object.fromEntries(fixed),
  };
}
