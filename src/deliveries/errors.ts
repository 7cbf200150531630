// docs/api.md part 17: the send_email binding's errors (an Error with `code`), as Email Service names
// them: those that pass (a limit, the service's own trouble) are retried; the others fail the delivery at once.

/** Passing: the same message may go through later. */
const PASSING = new Set([
  "E_RATE_LIMIT_EXCEEDED",
  "E_DAILY_LIMIT_EXCEEDED",
  "E_INTERNAL_SERVER_ERROR",
  "E_DELIVERY_FAILED",
]);

/**
 * Not passing: the recipient suppressed or refused, the sender not allowed or unverified, the message
 * malformed or too large. Anything else (no code, a code not known) is taken as passing: retried, and
 * `failed` after the last attempt, never lost.
 */
const FINAL = new Set([
  "E_RECIPIENT_SUPPRESSED",
  "E_RECIPIENT_NOT_ALLOWED",
  "E_SENDER_NOT_VERIFIED",
  "E_SENDER_DOMAIN_NOT_AVAILABLE",
  "E_CONTENT_TOO_LARGE",
  "E_VALIDATION_ERROR",
  "E_FIELD_MISSING",
  "E_TOO_MANY_RECIPIENTS",
  "E_TOO_MANY_ATTACHMENTS",
  "E_HEADER_NOT_ALLOWED",
  "E_HEADER_USE_API_FIELD",
  "E_HEADER_VALUE_INVALID",
  "E_HEADER_VALUE_TOO_LONG",
  "E_HEADER_NAME_INVALID",
  "E_HEADERS_TOO_LARGE",
  "E_HEADERS_TOO_MANY",
]);

interface SendError {
  passing: boolean;
  /** `error` of the delivery: the code and the binding's message. */
  reason: string;
}

export function classify(error: unknown): SendError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const named = typeof code === "string" ? code : undefined;
  // Miniflare's local binding throws plain Errors for a sender or recipient it does not allow.
  const localRefusal = !named && /not allowed|not verified/i.test(message);
  const passing = named ? PASSING.has(named) || !FINAL.has(named) : !localRefusal;
  return { passing, reason: (named ? `${named}: ${message}` : message).slice(0, 500) };
}
