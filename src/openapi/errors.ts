import type { ErrorCode } from "../errors";

/** When each error code is answered (docs/api.md part 3), for the OpenAPI document's responses. */
export const ERROR_TEXTS: Record<ErrorCode, string> = {
  invalid_json: "The body is not valid UTF-8 JSON, not a JSON object, or nested too deeply.",
  invalid_parameter: "A query parameter or header has a value that is not allowed.",
  unauthorized: "The bearer token is missing, malformed, expired or badly signed.",
  forbidden: "The token lacks the scope, or the customer_id, that the route needs.",
  not_found: "No such route, or no such resource for this customer.",
  method_not_allowed: "The path exists but not with this method; see the Allow header.",
  invalid_state: "The transition is not allowed from the resource's current state.",
  conflict: "The request conflicts with the current state, e.g. the order already has an invoice.",
  payload_too_large: "The body is larger than the request body limit (a bank statement: 10 MiB).",
  unsupported_media_type: "The body is not sent as application/json (a bank statement: as XML).",
  validation_failed:
    "A body field is missing, of the wrong type, not allowed or too long; one error per field, at most 20.",
  idempotency_key_reused: "The Idempotency-Key was used before for a different request.",
  invalid_document: "An uploaded file (a bank statement) is not what it must be; the detail says why.",
  rate_limited: "Too many requests for this principal; see Retry-After.",
  internal_error: "Something unexpected failed; nothing internal is disclosed.",
  unavailable:
    "The database or the token key set could not be reached; nothing was half-written. " +
    "Retry after Retry-After seconds.",
};
