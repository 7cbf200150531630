import type { GuardName } from "./db/guards";

// Every error the API can answer and its status: docs/api.md part 3. When each is answered is told
// by the OpenAPI document (src/openapi/errors.ts), whose text the Worker does not carry.
export const ERRORS = {
  invalid_json: 400,
  invalid_parameter: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_key_reused: 422,
  invalid_document: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERRORS;
type ErrorStatus = (typeof ERRORS)[ErrorCode];

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
    this.status = ERRORS[errors[0].code];
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
