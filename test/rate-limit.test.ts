import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES, BASE, call, expectError, newCardOrder, send, token, unique } from "./support/api";

// wrangler.toml: [[ratelimits]] RATE_LIMITER, simple = { limit = 600, period = 60 }.
const LIMIT = 600;
const PERIOD_MS = 60_000;
// Authenticated, and answered 404 before any database read: the cheapest request that is counted.
const CHEAP = "/card_orders/not-a-uuid";

const expectRateLimited = async (response: Response) => {
  expect(response.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
  expect(Number(response.headers.get("Retry-After"))).toBeLessThanOrEqual(PERIOD_MS / 1000);
  await expectError(response, 429, { code: "rate_limited", source: {} });
};

async function fetchStatus(path: string, auth?: string): Promise<number> {
  const response = await call(path, { token: auth });
  await response.arrayBuffer();
  return response.status;
}

/** Requests that name `sub` but are refused before the rate limit: no token, a bad signature, expired. */
async function refusedStatuses(sub: string): Promise<number[]> {
  const now = Math.floor(Date.now() / 1000);
  const forged = await sign({ sub, customer_id: "c", scope: ALL_SCOPES, exp: now + 600 }, "not-the-secret", "HS256");
  const expired = await token({ sub, exp: now - 60 });
  return [await fetchStatus(CHEAP), await fetchStatus(CHEAP, forged), await fetchStatus(CHEAP, expired)];
}

/**
 * Spends a fresh sub's whole allowance, then sends the requests beyond it. The local binding
 * (miniflare) counts in fixed windows aligned to the clock's minute, so a run that straddles a
 * window boundary proves nothing and is repeated, starting just after the next boundary.
 */
async function exhaustAllowance() {
  const window = (at: number) => Math.floor(at / PERIOD_MS);
  for (let attempt = 0; attempt < 3; attempt++) {
    const sub = unique("user");
    const customer = unique("customer");
    const auth = await token({ sub, customer_id: customer });
    const started = Date.now();
    const statuses: number[] = [];
    for (let sent = 0; sent < LIMIT; sent++) {
      // Between the counted requests, refused ones carrying the same sub: if they counted, some of
      // the 600 would be refused with 429.
      if (sent % 100 === 0) expect(await refusedStatuses(sub)).toStrictEqual([401, 401, 401]);
      statuses.push(await fetchStatus(CHEAP, auth));
    }
    const beyond = {
      sameRoute: await call(CHEAP, { token: auth }),
      post: await call("/card_orders", { token: auth, json: newCardOrder }),
      otherSub: await call(CHEAP, { token: await token({ customer_id: customer }) }),
    };
    if (window(started - 1000) === window(Date.now() + 1000)) return { customer, statuses, beyond };
    await Promise.all(Object.values(beyond).map((response) => response.arrayBuffer()));
    // Start again a second after the boundary just crossed (or about to be).
    const restart = window(Date.now() + 1000) * PERIOD_MS + 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, restart - Date.now())));
  }
  throw new Error("Could not send 600 requests within one rate-limit window in three attempts.");
}

describe("rate limiting with the RATE_LIMITER binding", () => {
  it("lets a sub's first 600 requests through, answers the next 429 with Retry-After; other subs pass", {
    timeout: 120_000,
  }, async () => {
    const { customer, statuses, beyond } = await exhaustAllowance();

    expect(statuses).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status !== 404)).toStrictEqual([]);
    await expectRateLimited(beyond.sameRoute);
    // Every authenticated route shares the allowance, and a refused POST writes nothing.
    await expectRateLimited(beyond.post);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM card_orders WHERE customer_id = ?")
        .bind(customer)
        .first<number>("n"),
    ).toBe(0);
    // Another sub, even of the same customer, is not affected; nor are public routes.
    await expectError(beyond.otherSub, 404, { code: "not_found" });
    expect((await call("/health")).status).toBe(200);
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
