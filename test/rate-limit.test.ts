import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES, BASE, call, expectError, newCardOrder, send, token, unique } from "./support/api";

// wrangler.toml's [[ratelimits]] RATE_LIMITER, handed to the tests as RATE_LIMIT_SIMPLE (vitest.config.ts).
const { limit: LIMIT, period: PERIOD_S } = env.RATE_LIMIT_SIMPLE;
// Authenticated, and answered 404 before any database read: the cheapest request that is counted.
const CHEAP = "/card_orders/not-a-uuid";

const expectRateLimited = async (response: Response) => {
  expect(response.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
  expect(Number(response.headers.get("Retry-After"))).toBeLessThanOrEqual(PERIOD_S);
  await expectError(response, 429, { code: "rate_limited", source: {} });
};

/**
 * The binding as the platform's counts (and Miniflare's): `limit` calls per key in fixed windows of
 * `period` seconds, aligned to the clock, on a clock the test moves instead of waiting for it.
 */
function limiterOnClock({ limit, period }: { limit: number; period: number }) {
  let now = 0;
  const counts = new Map<string, number>();
  const binding = {
    async limit({ key }: { key: string }) {
      const window = `${key} ${Math.floor(now / period)}`;
      counts.set(window, (counts.get(window) ?? 0) + 1);
      return { success: counts.get(window)! <= limit };
    },
  };
  return { binding: binding as unknown as RateLimit, advance: (seconds: number) => void (now += seconds) };
}

describe("rate limiting: the allowance of wrangler.toml's RATE_LIMITER", () => {
  it("is docs/api.md part 3's: 600 requests per 60 seconds", () => {
    expect(env.RATE_LIMIT_SIMPLE).toStrictEqual({ limit: 600, period: 60 });
  });

  it("lets a sub's first 600 requests through, answers the next 429 with Retry-After; other subs pass", async () => {
    const clock = limiterOnClock(env.RATE_LIMIT_SIMPLE);
    const fetchStatus = async (path: string, auth?: string) => {
      const response = await call(path, { token: auth, env: { RATE_LIMITER: clock.binding } });
      await response.arrayBuffer();
      return response.status;
    };
    const sub = unique("user");
    const customer = unique("customer");
    const auth = await token({ sub, customer_id: customer });
    const now = Math.floor(Date.now() / 1000);
    const forged = await sign({ sub, customer_id: "c", scope: ALL_SCOPES, exp: now + 600 }, "not-the-secret", "HS256");
    const expired = await token({ sub, exp: now - 60 });
    // The allowance spent from a second into a window, so that Retry-After must reach past its end.
    clock.advance(1);
    const statuses: number[] = [];
    for (let sent = 0; sent < LIMIT; sent++) {
      // Between the counted requests, refused ones naming the same sub: if they counted, some of the
      // 600 would be refused with 429.
      if (sent % 100 === 0)
        expect([
          await fetchStatus(CHEAP),
          await fetchStatus(CHEAP, forged),
          await fetchStatus(CHEAP, expired),
        ]).toStrictEqual([401, 401, 401]);
      statuses.push(await fetchStatus(CHEAP, auth));
    }
    expect(statuses).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status !== 404)).toStrictEqual([]);

    const limited = await call(CHEAP, { token: auth, env: { RATE_LIMITER: clock.binding } });
    const retryAfter = Number(limited.headers.get("Retry-After"));
    await expectRateLimited(limited);
    // Every authenticated route shares the allowance, and a refused POST writes nothing.
    await expectRateLimited(
      await call("/card_orders", { token: auth, json: newCardOrder, env: { RATE_LIMITER: clock.binding } }),
    );
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM card_orders WHERE customer_id = ?")
        .bind(customer)
        .first<number>("n"),
    ).toBe(0);
    // Another sub, even of the same customer, is not affected; nor are public routes.
    const otherSub = await token({ customer_id: customer });
    await expectError(await call(CHEAP, { token: otherSub, env: { RATE_LIMITER: clock.binding } }), 404, {
      code: "not_found",
    });
    expect(await fetchStatus("/health")).toBe(200);
    // Once Retry-After has passed, the sub is let through again.
    clock.advance(retryAfter);
    expect(await fetchStatus(CHEAP, auth)).toBe(404);
  });
});
describe("the rate limit step of every authenticated route", () => {
  /** A binding that records each call and answers as told. */
  function stubLimiter(success: boolean) {
    const calls: unknown[] = [];
    const binding = {
      async limit(options: unknown) {
        calls.push(options);
        return { success };
      },
    };
    return { calls, binding: binding as unknown as RateLimit };
  }

  const fetchWith = (limiter: RateLimit, path: string, init: RequestInit = {}) =>
    send(new Request(BASE + path, init), { RATE_LIMITER: limiter });

  const postOrder = (
    auth: string,
    body = JSON.stringify(newCardOrder),
    headers: Record<string, string> = {},
  ): RequestInit => ({
    method: "POST",
    headers: { Authorization: `Bearer ${auth}`, "Content-Type": "application/json", ...headers },
    body,
  });

  it("answers 429 rate_limited with Retry-After before the handler runs: a POST writes nothing", async () => {
    const sub = unique("user");
    const customer = unique("customer");
    const limiter = stubLimiter(false);
    const response = await fetchWith(
      limiter.binding,
      "/card_orders",
      postOrder(await token({ sub, customer_id: customer }), undefined, { "Idempotency-Key": "k-1" }),
    );

    await expectRateLimited(response);
    expect(limiter.calls).toStrictEqual([{ key: sub }]);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM card_orders WHERE customer_id = ?")
        .bind(customer)
        .first<number>("n"),
    ).toBe(0);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM idempotency_keys WHERE principal = ?")
        .bind(sub)
        .first<number>("n"),
    ).toBe(0);
  });

  it("limits before reading the body: a malformed body is refused with 429, not 400", async () => {
    const limiter = stubLimiter(false);
    await expectRateLimited(await fetchWith(limiter.binding, "/card_orders", postOrder(await token(), "{not json")));
    expect(limiter.calls).toHaveLength(1);
  });

  it("lets the request through when the binding allows it, keyed by the token's sub", async () => {
    const sub = unique("user");
    const limiter = stubLimiter(true);
    const response = await fetchWith(limiter.binding, "/card_orders", postOrder(await token({ sub })));
    expect(response.status).toBe(201);
    expect(limiter.calls).toStrictEqual([{ key: sub }]);
  });

  it("does not count requests refused by authentication (401) or scope (403), nor public routes", async () => {
    const limiter = stubLimiter(false);
    const now = Math.floor(Date.now() / 1000);
    const forged = await sign(
      { sub: "someone", customer_id: "c", scope: ALL_SCOPES, exp: now + 600 },
      "not-the-secret",
      "HS256",
    );

    expect((await fetchWith(limiter.binding, CHEAP)).status).toBe(401);
    expect((await fetchWith(limiter.binding, CHEAP, { headers: { Authorization: `Bearer ${forged}` } })).status).toBe(
      401,
    );
    const readOnly = await token({ scope: "invoices:read" });
    expect((await fetchWith(limiter.binding, CHEAP, { headers: { Authorization: `Bearer ${readOnly}` } })).status).toBe(
      403,
    );
    expect((await fetchWith(limiter.binding, "/health")).status).toBe(200);
    expect(limiter.calls).toStrictEqual([]);
  });
});
