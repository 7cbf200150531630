import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import type { AppEnv } from "../env";
import { ApiError, causedBy, DatabaseUnavailableError, isWriteConflict } from "../errors";
import { sendJson } from "./reply";

const RETRY_AFTER_SECONDS = "1";

const errorResponse = (c: Context, error: ApiError): Response =>
  sendJson(c, error.status, JSON.stringify({ errors: error.errors }), error.headers);

/** Every thrown error becomes the error envelope (docs/api.md part 3); a 500 says nothing of the internals. */
export const onError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof ApiError) return errorResponse(c, error);
  if (isWriteConflict(error)) {
    return errorResponse(
      c,
      ApiError.of("conflict", "The resource changed while this request ran; nothing was written. Fetch it and retry."),
    );
  }
  if (causedBy(error, DatabaseUnavailableError)) {
    console.error(
      JSON.stringify({
        level: "error",
        request_id: c.get("requestId"),
        error: "database_unavailable",
        cause: String((error as Error).cause ?? error),
      }),
    );
    return errorResponse(
      c,
      ApiError.of(
        "unavailable",
        "The database is unavailable; nothing was half-written. " +
          "Retry the request (a write with the same Idempotency-Key).",
        {},
        {
          "Retry-After": RETRY_AFTER_SECONDS,
        },
      ),
    );
  }
  console.error(
    JSON.stringify({
      level: "error",
      request_id: c.get("requestId"),
      error: String(error),
      stack: (error as Error)?.stack,
    }),
  );
  return errorResponse(
    c,
    ApiError.of("internal_error", "Something went wrong on our side. The error has been logged."),
  );
};

export const onNotFound: NotFoundHandler<AppEnv> = (c) =>
  errorResponse(c, ApiError.of("not_found", "No route matches this path."));
