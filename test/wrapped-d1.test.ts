import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import wrappedWorker from "../bench/wrapped-d1/worker";
import { wrapD1 } from "../bench/wrapped-d1/wrap";
import { BASE, expectError, send, token, unique } from "./support/api";

// bench/wrapped-d1: the service with a slow or failing D1, for `npm run load -- --faults` and the
// bench's latency scenario. What it promises: delays and faults per call, as configured; a failure
// before the call leaves nothing behind, one after it leaves the call's effects; the count of calls.

const ORDER = { voucher_category: "meal", payment_method: "bank_transfer" };

const viaEntry = (request: Request, vars: Record<string, string>) => send(request, vars, wrappedWorker);

const createOrder = (auth: string) =>
  new Request(`${BASE}/card_orders`, {
    method: "POST",
    headers: { Authorization: `Bearer ${auth}`, "Content-Type": "application/json" },
    body: JSON.stringify(ORDER),
  });
const listOrders = (auth: string) =>
  new Request(`${BASE}/card_orders`, { headers: { Authorization: `Bearer ${auth}` } });
const ordersOf = async (customer: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM card_orders WHERE customer_id = ?")
    .bind(customer)
    .first<{ n: number }>())!.n;

describe("the wrapped-d1 entry", () => {
  it("serves the service and counts the D1 round trips of each request in x-d1-round-trips", async () => {
    const auth = await token();
    const health = await viaEntry(new Request(`${BASE}/health`), {});
    expect([health.status, health.headers.get("x-d1-round-trips")]).toStrictEqual([200, "0"]);
    const created = await viaEntry(createOrder(auth), {});
    expect([created.status, created.headers.get("x-d1-round-trips")]).toStrictEqual([201, "1"]);
    // A list page and its total go in one batch.
    const listed = await viaEntry(listOrders(auth), {});
    expect([listed.status, listed.headers.get("x-d1-round-trips")]).toStrictEqual([200, "1"]);
    expect(((await listed.json()) as any).meta.total_entries).toBe(1);
  });

  it("waits D1_DELAY_MS before every call", async () => {
    const auth = await token();
    const started = performance.now();
    const response = await viaEntry(listOrders(auth), { D1_DELAY_MS: "60" });
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(60);
  });

  it("fails calls at the D1_FAULT_RATE: the service answers 503 unavailable with Retry-After", async () => {
    const response = await viaEntry(listOrders(await token()), { D1_FAULT_RATE: "1" });
    expect(response.headers.get("Retry-After")).toBe("1");
    await expectError(response, 503, { code: "unavailable" });
  });

  it("refuses a malformed setting rather than run without it", async () => {
    await expect(viaEntry(listOrders(await token()), { D1_FAULT_RATE: "5%" })).rejects.toThrow(/D1_FAULT_RATE/);
  });
});

describe("wrapD1", () => {
  it("fails a call before it reaches the database, or after it committed, as the draw says", async () => {
    for (const [draw, stored] of [
      [0.1, 0],
      [0.9, 1],
    ] as const) {
      const customer = unique("customer");
      const auth = await token({ customer_id: customer });
      const db = wrapD1(env.DB, { delayMs: 0, faultRate: 1, random: () => draw });
      expect((await send(createOrder(auth), { DB: db })).status).toBe(503);
      expect(await ordersOf(customer)).toBe(stored);
    }
  });

  it("counts and fails calls of sessions, statements, batches and the binding alike", async () => {
    const trips = { calls: 0, sequential: 0 };
    const db = wrapD1(env.DB, { delayMs: 0, faultRate: 0 }, trips);
    const session = db.withSession("first-primary");
    await session.prepare("SELECT 1").all();
    await session.batch([session.prepare("SELECT 1"), session.prepare("SELECT 2")]);
    await db.prepare("SELECT ?").bind(1).first();
    await db.prepare("SELECT 1").raw();
    await db.batch([db.prepare("SELECT 1")]);
    expect(trips).toStrictEqual({ calls: 5, sequential: 5 });
    const failing = wrapD1(env.DB, { delayMs: 0, faultRate: 1 });
    await expect(failing.prepare("SELECT 1").run()).rejects.toThrow(/Network connection lost/);
    await expect(failing.withSession().batch([failing.prepare("SELECT 1")])).rejects.toThrow(/Network connection lost/);
  });
});
