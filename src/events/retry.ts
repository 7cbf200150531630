import type { Bindings } from "../env";

// A failed delivery or push waits longer each time: 30 s, 2 min, 8 min, 32 min, ~2 h, ~8.5 h, then
// 12 h (the queue's longest delay), until wrangler.jobs.toml's max_retries sends it to the dead-letter
// queue. WEBHOOK_RETRY_BASE_SECONDS sets the first wait (the tests make it 0).
const DEFAULT_BASE_S = 30;
const LONGEST_S = 12 * 60 * 60;

// Our own failure (D1 or the queue unreachable while fanning out or looking up an endpoint) is
// retried sooner: 2 s, 8 s, 32 s, ...; the receiver has not been tried yet, and docs/api.md part 11
// wants the first attempt within 30 s of the change.
const OWN_FAILURE_BASE_S = 2;

const growing = (base: number, attempt: number) => Math.min(base * 4 ** (attempt - 1), LONGEST_S);

export function retryDelaySeconds(attempt: number, env: Pick<Bindings, "WEBHOOK_RETRY_BASE_SECONDS">): number {
  const configured = Number(env.WEBHOOK_RETRY_BASE_SECONDS);
  const base =
    env.WEBHOOK_RETRY_BASE_SECONDS !== undefined && Number.isInteger(configured) && configured >= 0
      ? configured
      : DEFAULT_BASE_S;
  return growing(base, attempt);
}

const spoken = (seconds: number) =>
  seconds < 60 ? `${seconds} s` : seconds < 3600 ? `${seconds / 60} min` : `${seconds / 3600} h`;

/** The waits of a failed delivery, as the OpenAPI document states them. */
export const describeRetries = (): string =>
  `after ${[1, 2, 3].map((attempt) => spoken(growing(DEFAULT_BASE_S, attempt))).join(", ")} ` +
  `and so on, at most every ${spoken(LONGEST_S)}`;

export const ownFailureRetryDelaySeconds = (attempt: number): number => growing(OWN_FAILURE_BASE_S, attempt);

/** One JSON line per attempt, for deliveries and pushes alike; never a secret or a device token. */
export const logAttempt = (fields: Record<string, unknown>): void => console.log(JSON.stringify(fields));

/** Attempts in all: wrangler.jobs.toml's max_retries (8) and the first (check-house holds them equal). */
export const MAX_ATTEMPTS = 9;

/** What failed every attempt, for an operator: the dead-letter queue's consumer logs the same line. */
export const logDeadLetter = (fields: {
  kind: string;
  event_id: string;
  endpoint_id?: string;
  attempts: number;
}): void => console.error(JSON.stringify({ level: "error", job: "dead_letter", ...fields }));
