import type { GuardName } from "./db/guards";

// Every error the API can answer, its status and when: docs/api.md part 3. The OpenAPI document is
// built from this table too.
export const ERRORS = {
  invalid_json: [400, "The body is not valid UTF-8 JSON, not a JSON object, or nested too deeply."],
  invalid_parameter: [400, "A query parameter or header has a value that is not allowed."],
  unauthorized: [401, "The bearer token is missing, malformed, expired or badly signed."],
  forbidden: [403, "The token lacks the scope, or the customer_id, that the route needs."],
  not_found: [404, "No such route, or no such resource for this customer."],
  method_not_allowed: [405, "The path exists but not with this method; see the Allow header."],
  invalid_state: [409, "The transition is not allowed from the resource's current state."],
  conflict: [409, "The request conflicts with the current state, e.g. the order already has an invoice."],
  payload_too_large: [413, "The body is larger than the request body limit."],
  unsupported_media_type: [415, "The body is not sent as application/json."],
  validation_failed: [
    422,
    "A body field is missing, of the wrong type, not allowed or too long; one error per field, at most 20.",
  ],
  idempotency_key_reused: [422, "The Idempotency-Key was used before for a different request."],
  rate_limited: [429, "Too many requests for this principal; see Retry-After."],
  internal_error: [500, "Something unexpected failed; nothing internal is disclosed."],
  unavailable: [
    503,
    "The database or the token key set could not be reached; nothing was half-written. " +
      "Retry after Retry-After seconds.",
  ],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERRORS;
type ErrorStatus = (typeof ERRORS)[ErrorCode][0];

type ErrorSource = { pointer: string } | { parameter: string } | { header: string } | Record<string, never>;

export interface ErrorItem {
  detail: string;
  code: ErrorCode;
  source: ErrorSource;
}

/** The one way to fail a request: thrown anywhere, rendered by `onError` as the error envelope. */
export class ApiError extends Error {
  readonly status: ErrorStatus;

  constructor(
    readonly errors: [ErrorItem, ...ErrorItem[]],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors[0].detail);
    this.name = "ApiError";
    this.status = ERRORS[errors[0].code][0];
  }

  static of(code: ErrorCode, detail: string, source: ErrorSource = {}, headers?: Record<string, string>): ApiError {
    return new ApiError([{ detail, code, source }], headers);
  }
}

export const notFound = (what = "resource"): ApiError => ApiError.of("not_found", `No such ${what}.`);

/** `row`, or a 404 naming `what` when there is none. */
export function found<T>(row: T | undefined, what: string): T {
  if (row === undefined) throw notFound(what);
  return row;
}

/** A database call failed (unreachable, overloaded, injected fault): the client may retry. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super("database unavailable", { cause });
    this.name = "DatabaseUnavailableError";
  }
}

/**
 * A concurrent request changed what this write relied on, so D1 rolled the whole batch back; the
 * request may be retried. Raised for the guards of db/guards.ts only, never by other constraints.
 */
export class WriteConflict extends Error {
  constructor(
    /** The guard that failed. */
    readonly guard: GuardName,
  ) {
    super(guard);
    this.name = "WriteConflict";
  }
}

/** Whether `error` or an error down its cause chain is a `kind` (drizzle wraps driver errors). */
export const causedBy = (error: unknown, kind: new (...args: never[]) => Error): boolean =>
  error instanceof kind || (error instanceof Error && causedBy(error.cause, kind));

export const isWriteConflict = (error: unknown): boolean => causedBy(error, WriteConflict);
