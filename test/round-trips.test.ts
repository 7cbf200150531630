import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type RoundTrips, wrapD1 } from "../bench/wrapped-d1/wrap";
import type { RouteSpec } from "../src/http/route";
import { call, send, token, unique } from "./support/api";
import { EXAMPLES, type Example, requestOf, routeExamples } from "./support/examples";
import { FaultyD1, type CallRecord } from "./support/faulty-d1";
import { drainStatements, statementsQueued } from "./support/queue";
import { ROUTES } from "./support/routes";

// Issue 11: at the edge, latency is sequential round trips to D1. Every read endpoint makes exactly
// one; every write at most two (one read batch carrying the Idempotency-Key lookup, one write
// batch), with or without a key. The bench's latency scenario measures the same thing in time.

// Every route that uses the database, with its example (test/support/examples.ts): a route without
// one fails this file, naming it.
const ROUTE_EXAMPLES = routeExamples();

const isWrite = (call: CallRecord) =>
  call.sql.some((statement) => /^\s*(insert|update|delete|replace)\b/i.test(statement));

async function measure(testCase: Example, idempotencyKey?: string) {
  const request = await testCase.prepare();
  const { method, path } = request;
  const db = new FaultyD1(env.DB);
  const response = await send(requestOf(request, idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}), {
    DB: db.binding,
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBe(testCase.status);
  const isJson = response.headers.get("Content-Type")?.startsWith("application/json");
  return { calls: db.calls, method, body: isJson ? JSON.parse(text) : text };
}

describe("round trips to D1 per request", () => {
  it("a route without an example fails this file, naming it and the file to add it to", () => {
    const fake: RouteSpec = {
      ...ROUTES.find((spec) => spec.access)!,
      method: "post",
      path: "/widgets/{id}",
      operationId: "createWidget",
    };
    expect(() => routeExamples([...ROUTES, fake])).toThrowError(
      "A route of the route table (src/app.ts) without an example: add one to EXAMPLES in test/support/examples.ts, " +
        "keyed by its operationId (one successful request on fresh preconditions):\n" +
        "  POST /widgets/{id} (operationId createWidget)",
    );
    expect(routeExamples().map(({ operationId }) => operationId)).toStrictEqual(
      ROUTES.filter((spec) => spec.access !== undefined).map((spec) => spec.operationId),
    );
  });

  const reads = ROUTE_EXAMPLES.filter(({ spec }) => spec.method === "get").map(
    ({ operationId, example }) => [operationId, example] as const,
  );
  const writes = ROUTE_EXAMPLES.filter(({ spec }) => spec.method !== "get").map(
    ({ operationId, example }) => [operationId, example] as const,
  );

  it.each(reads)("%s: exactly one round trip", async (id, testCase) => {
    const { calls, body } = await measure(testCase);
    expect(calls.map(isWrite)).toStrictEqual([false]);
    if (id.startsWith("list")) expect(body.data.length, `${id} lists a row`).toBeGreaterThan(0);
  });

  it.each(
    writes.flatMap(
      ([id, testCase]) =>
        [
          [id, "without an Idempotency-Key", testCase, false],
          [id, "with an Idempotency-Key", testCase, true],
        ] as const,
    ),
  )("%s %s: one read batch at most, then one write batch", async (_, __, testCase, keyed) => {
    const { calls, method } = await measure(testCase, keyed ? unique("key") : undefined);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(2);
    // The last call writes, in one batch; the one before it (if any) only reads.
    expect(calls.map(isWrite)).toStrictEqual(calls.map((_, i) => i === calls.length - 1));
    expect(calls.at(-1)!.kind).toBe("batch");
    // With a key, a POST's lookup rides in the first call, never in a call of its own (PUT and
    // DELETE are idempotent by themselves: docs/api.md part 7 keys only POSTs).
    if (keyed && method === "POST")
      expect(calls[0]!.sql.some((sql) => sql.includes('"idempotency_keys"') && /^\s*select/i.test(sql))).toBe(true);
  });

  it("a keyed repeat is answered from the stored response in one round trip", async () => {
    const testCase = EXAMPLES.createCardOrder!;
    const prepared = await testCase.prepare();
    const key = unique("key");
    const request = () => requestOf(prepared, { "Idempotency-Key": key });
    expect((await send(request())).status).toBe(201);
    const db = new FaultyD1(env.DB);
    const replay = await send(request(), { DB: db.binding });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(db.count).toBe(1);
  });

  it("following a list's next cursor is one round trip too", async () => {
    const auth = await token();
    for (let i = 0; i < 3; i++)
      await call("/card_orders", { token: auth, json: { voucher_category: "gift", payment_method: "bank_transfer" } });
    const first: any = await (await call("/card_orders?page_size=1", { token: auth })).json();
    const db = new FaultyD1(env.DB);
    const next = await send(new Request(first.links.next, { headers: { Authorization: `Bearer ${auth}` } }), {
      DB: db.binding,
    });
    expect(next.status).toBe(200);
    expect(first.links.next).toContain("cursor=");
    expect(db.count).toBe(1);
  });
});

// Issue 36 point 4: in one of two full bench runs the keyed statement upload read as 3 round trips.
// The bench then took round trips from time (p50 / the D1 delay), and the upload also waits for its
// file's R2 put; what it sends D1 is the same every time. The bench now counts sequential round trips
// with bench/wrapped-d1/wrap.ts, as these tests do.
const NO_DELAY = { delayMs: 0, faultRate: 0 };

describe("a bank statement upload's sequential round trips (docs/api.md part 15)", () => {
  /** One upload of a new statement file, its D1 calls counted; `meanwhile` runs while it is under way. */
  async function upload(idempotencyKey?: string, meanwhile?: () => Promise<unknown>): Promise<RoundTrips> {
    const request = await EXAMPLES.createBankStatements!.prepare();
    const trips: RoundTrips = { calls: 0, sequential: 0 };
    const headers: Record<string, string> = idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {};
    const answer = send(requestOf(request, headers), { DB: wrapD1(env.DB, NO_DELAY, trips) });
    await meanwhile?.();
    const response = await answer;
    expect(response.status, await response.clone().text()).toBe(202);
    return trips;
  }

  it("counts calls under way at once as one round trip, and a call after one came back as one more", async () => {
    const trips: RoundTrips = { calls: 0, sequential: 0 };
    const db = wrapD1(env.DB, NO_DELAY, trips);
    await Promise.all([db.prepare("SELECT 1").all(), db.withSession("first-primary").prepare("SELECT 2").first()]);
    expect(trips).toStrictEqual({ calls: 2, sequential: 1 });
    await db.batch([db.prepare("SELECT 3"), db.prepare("SELECT 4")]);
    expect(trips).toStrictEqual({ calls: 3, sequential: 2 });
  });

  it("without an Idempotency-Key: one, the batch that stores the statements, every time", async () => {
    for (let i = 0; i < 3; i++) expect(await upload()).toStrictEqual({ calls: 1, sequential: 1 });
  });

  it("with one: two, the key's lookup, then the batch that also stores the response, every time", async () => {
    for (let i = 0; i < 3; i++) expect(await upload(unique("key"))).toStrictEqual({ calls: 2, sequential: 2 });
  });

  it("still two while the jobs Worker reads and matches earlier statements on the same database", async () => {
    await upload();
    await upload();
    expect(statementsQueued.messages.length).toBeGreaterThanOrEqual(2);
    let drained = 0;
    const trips = await upload(unique("key"), async () => (drained = (await drainStatements()).length));
    expect(trips).toStrictEqual({ calls: 2, sequential: 2 });
    expect(drained).toBeGreaterThanOrEqual(2);
  });

  it("a keyed repeat: one, the lookup that finds the stored response", async () => {
    const request = await EXAMPLES.createBankStatements!.prepare();
    const key = unique("key");
    expect((await send(requestOf(request, { "Idempotency-Key": key }))).status).toBe(202);
    const trips: RoundTrips = { calls: 0, sequential: 0 };
    const replay = await send(requestOf(request, { "Idempotency-Key": key }), { DB: wrapD1(env.DB, NO_DELAY, trips) });
    expect([replay.status, replay.headers.get("Idempotent-Replayed")]).toStrictEqual([202, "true"]);
    expect(trips).toStrictEqual({ calls: 1, sequential: 1 });
  });
});
