import type { Context } from "hono";
import { principalOf } from "../auth/principal";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";

// The binding's period is 10 or 60 seconds (wrangler.toml); waiting the longer one always suffices.
const RETRY_AFTER_SECONDS = "60";

/** Per principal, with the Workers Rate Limiting binding (limits set in wrangler.toml). */
export async function rateLimit(c: Context<AppEnv>): Promise<void> {
  let success = true;
  try {
    ({ success } = await c.env.RATE_LIMITER.limit({ key: principalOf(c).sub }));
  } catch (error) {
    // The limiter protects the API; its own outage must not take the API down with it.
    console.error(
      JSON.stringify({
        level: "error",
        request_id: c.get("requestId"),
        error: "rate_limiter_unavailable",
        cause: String(error),
      }),
    );
  }
  if (!success)
    throw ApiError.of(
      "rate_limited",
      "Too many requests for this token's subject; slow down and retry later.",
      {},
      { "Retry-After": RETRY_AFTER_SECONDS },
    );
}
