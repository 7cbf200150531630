import type { Bindings } from "../env";

// A failed delivery or push waits longer each time: 30 s, 2 min, 8 min, 32 min, ~2 h, ~8.5 h, then
// 12 h (the queue's longest delay), until wrangler.toml's max_retries sends it to the dead-letter
// queue. WEBHOOK_RETRY_BASE_SECONDS sets the first wait (the tests make it 0).
const DEFAULT_BASE_S = 30;
const LONGEST_S = 12 * 60 * 60;

export function retryDelaySeconds(attempt: number, env: Pick<Bindings, "WEBHOOK_RETRY_BASE_SECONDS">): number {
  const configured = Number(env.WEBHOOK_RETRY_BASE_SECONDS);
  const base = env.WEBHOOK_RETRY_BASE_SECONDS !== undefined && Number.isInteger(configured) && configured >= 0 ? configured : DEFAULT_BASE_S;
  return Math.min(base * 4 ** (attempt - 1), LONGEST_S);
}

/** One JSON line per attempt, for deliveries and pushes alike; never a secret or a device token. */
export const logAttempt = (fields: Record<string, unknown>): void => console.log(JSON.stringify(fields));
