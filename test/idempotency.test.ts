import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  BASE,
  type Bindings,
  businessDay,
  call,
  createInvoice,
  newEntry,
  orderIn,
  expectError,
  expectJson,
  JSON_TYPE,
  newCardOrder,
  singlePage,
  token,
  unique,
} from "./support/api";

const HEADER = "Idempotency-Key";
const DAY_MS = 24 * 60 * 60 * 1000;

/** A caller whose sub we know, so that its stored keys can be read back from the database. */
async function principal(claims: { sub?: string; customer_id?: string } = {}) {
  const sub = claims.sub ?? unique("user");
  const customer = claims.customer_id ?? unique("customer");
  return { sub, customer, auth: await token({ sub, customer_id: customer }) };
}

/** A POST as a client sends it, with the key when one is given. */
function post(auth: string, path: string, key: string | undefined, json?: unknown): Promise<Response> {
  return call(path, { method: "POST", token: auth, json, headers: key === undefined ? {} : { [HEADER]: key } });
}

async function transition(auth: string, path: string): Promise<void> {
  expect((await call(path, { method: "POST", token: auth })).status).toBe(200);
}

const TABLES = [
  "card_orders",
  "card_order_entries",
  "invoices",
  "number_sequences",
  "list_counts",
  "events",
  "idempotency_keys",
];

/** Every row a write could touch, so that "writes nothing" compares the whole database. */
async function snapshot(): Promise<unknown[][]> {
  const results = await env.DB.batch(TABLES.map((table) => env.DB.prepare(`SELECT * FROM ${table} ORDER BY rowid`)));
  return results.map((result) => result.results);
}

async function countOf(sql: string, ...values: unknown[]): Promise<number> {
  return (await env.DB.prepare(`SELECT count(*) AS n FROM ${sql}`)
    .bind(...values)
    .first<number>("n"))!;
}

function storedKey(sub: string, key: string) {
  return env.DB.prepare(
    "SELECT request_hash, status, body, expires_at FROM idempotency_keys WHERE principal = ? AND key = ?",
  )
    .bind(sub, key)
    .first<{ request_hash: string; status: number; body: string; expires_at: string }>();
}

/** The year of `at`'s calendar day in BUSINESS_TIME_ZONE, which numbers invoices (docs/api.md part 14). */
const businessYear = (at?: string) => Number(businessDay(at).slice(0, 4));

async function lastNumber(series: string, year = businessYear()): Promise<number> {
  return (
    (await env.DB.prepare("SELECT last FROM number_sequences WHERE series = ? AND year = ?")
      .bind(series, year)
      .first<number>("last")) ?? 0
  );
}

interface Prepared {
  path: string;
  json?: unknown;
  status: 200 | 201;
  /** The same key on this request is a different request (other body or other path) that would succeed if it ran. */
  other: { path: string; json?: unknown };
  /** What the request answers when it runs a second time rather than being replayed. */
  rerun: { status: 201 } | { status: 409; code: "conflict" | "invalid_state" };
}

/** Every POST route, each set up so that its request succeeds once. */
const ROUTES: { name: string; prepare: (auth: string) => Promise<Prepared> }[] = [
  {
    name: "POST /card_orders",
    prepare: async () => ({
      path: "/card_orders",
      json: newCardOrder,
      status: 201,
      other: { path: "/card_orders", json: { ...newCardOrder, description: "other" } },
      rerun: { status: 201 },
    }),
  },
  {
    name: "POST /invoices",
    prepare: async (auth) => {
      const order = await orderIn(auth, "submitted");
      return {
        path: "/invoices",
        json: { order_id: order.id },
        status: 201,
        other: { path: "/invoices", json: { order_id: order.id, reference: "other" } },
        rerun: { status: 409, code: "conflict" },
      };
    },
  },
  {
    name: "POST /card_orders/{id}/entries",
    prepare: async (auth) => {
      const order = await orderIn(auth, "draft");
      const path = `/card_orders/${order.id}/entries`;
      return {
        path,
        json: newEntry,
        status: 201,
        other: { path, json: { ...newEntry, amount: "1.00" } },
        rerun: { status: 201 },
      };
    },
  },
  {
    name: "POST /card_orders/{id}/submit",
    prepare: async (auth) => {
      const order = await orderIn(auth, "draft");
      return {
        path: `/card_orders/${order.id}/submit`,
        status: 200,
        other: { path: `/card_orders/${order.id}/cancel` },
        rerun: { status: 409, code: "invalid_state" },
      };
    },
  },
  {
    name: "POST /card_orders/{id}/cancel",
    prepare: async (auth) => {
      const order = await orderIn(auth, "draft");
      return {
        path: `/card_orders/${order.id}/cancel`,
        status: 200,
        other: { path: `/card_orders/${order.id}/submit` },
        rerun: { status: 409, code: "invalid_state" },
      };
    },
  },
  {
    name: "POST /card_orders/{id}/start_production",
    prepare: async (auth) => {
      const order = await orderIn(auth, "draft");
      await transition(auth, `/card_orders/${order.id}/submit`);
      return {
        path: `/card_orders/${order.id}/start_production`,
        status: 200,
        other: { path: `/card_orders/${order.id}/cancel` },
        rerun: { status: 409, code: "invalid_state" },
      };
    },
  },
  {
    name: "POST /card_orders/{id}/deliver",
    prepare: async (auth) => {
      const [order, another] = [await orderIn(auth, "draft"), await orderIn(auth, "draft")];
      for (const { id } of [order, another]) {
        await transition(auth, `/card_orders/${id}/submit`);
        await transition(auth, `/card_orders/${id}/start_production`);
      }
      return {
        path: `/card_orders/${order.id}/deliver`,
        status: 200,
        other: { path: `/card_orders/${another.id}/deliver` },
        rerun: { status: 409, code: "invalid_state" },
      };
    },
  },
  {
    name: "POST /invoices/{id}/pay",
    prepare: async (auth) => {
      const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
      return {
        path: `/invoices/${invoice.id}/pay`,
        status: 200,
        other: { path: `/invoices/${invoice.id}/cancel` },
        rerun: { status: 409, code: "invalid_state" },
      };
    },
  },
  {
    name: "POST /invoices/{id}/cancel",
    prepare: async (auth) => {
      const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
      return {
        path: `/invoices/${invoice.id}/cancel`,
        status: 200,
        other: { path: `/invoices/${invoice.id}/pay` },
        rerun: { status: 409, code: "invalid_state" },
      };
    },
  },
];

describe.each(ROUTES)("Idempotency-Key on $name", ({ prepare }) => {
  it("replays the stored response: same status, byte-identical body, Idempotent-Replayed, no write", async () => {
    const { sub, auth } = await principal();
    const request = await prepare(auth);
    const key = unique("key");

    const first = await post(auth, request.path, key, request.json);
    const firstText = await first.text();
    expect({ status: first.status, body: firstText }).toMatchObject({ status: request.status });
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    // The key holds exactly what was sent, for 24 hours.
    const stored = await storedKey(sub, key);
    expect(stored).toMatchObject({ status: request.status, body: firstText });
    expect(Date.parse(stored!.expires_at) - Date.now()).toBeGreaterThan(DAY_MS - 60_000);
    expect(Date.parse(stored!.expires_at) - Date.now()).toBeLessThanOrEqual(DAY_MS);

    const before = await snapshot();
    const replay = await post(auth, request.path, key, request.json);
    expect(replay.status).toBe(request.status);
    expect(replay.headers.get("Content-Type")).toBe(JSON_TYPE);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.text()).toBe(firstText);
    expect(await snapshot()).toStrictEqual(before);
  });

  it("answers 422 idempotency_key_reused to the same key on a different request, and writes nothing", async () => {
    const { auth } = await principal();
    const request = await prepare(auth);
    const key = unique("key");
    expect((await post(auth, request.path, key, request.json)).status).toBe(request.status);

    const before = await snapshot();
    await expectError(await post(auth, request.other.path, key, request.other.json), 422, {
      code: "idempotency_key_reused",
      source: { header: HEADER },
    });
    expect(await snapshot()).toStrictEqual(before);
  });

  it("keeps keys per principal: the same key and request from another sub runs as a new request", async () => {
    const mine = await principal();
    const request = await prepare(mine.auth);
    const key = unique("key");
    const first = await post(mine.auth, request.path, key, request.json);
    const firstText = await first.text();
    expect(first.status).toBe(request.status);

    const colleague = await principal({ customer_id: mine.customer });
    const second = await post(colleague.auth, request.path, key, request.json);
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    if (request.rerun.status === 201) {
      const created = await expectJson(second, 201, expect.anything());
      expect(created.data[0].id).not.toBe(JSON.parse(firstText).data[0].id);
      expect(await storedKey(colleague.sub, key)).toMatchObject({ status: 201, body: JSON.stringify(created) });
    } else {
      // It already happened, so running it again is refused rather than replayed.
      await expectError(second, 409, { code: request.rerun.code });
    }
    expect(await storedKey(mine.sub, key)).toMatchObject({ body: firstText });
  });

  it.each([
    ["empty", ""],
    ["256 characters long", "k".repeat(256)],
    ["non-ASCII", "schlüssel"],
    ["with a space inside", "two words"],
    ["with a tab inside", "tab\there"],
    ["with a control character", "a\u007fb"],
  ])("answers 400 invalid_parameter to a key that is %s, and writes nothing", async (_, key) => {
    const { auth } = await principal();
    const request = await prepare(auth);
    const before = await snapshot();
    await expectError(await post(auth, request.path, key, request.json), 400, {
      code: "invalid_parameter",
      source: { header: HEADER },
    });
    expect(await snapshot()).toStrictEqual(before);
  });
});

describe("Idempotency-Key", () => {
  it("accepts 1 to 255 visible ASCII characters as a key", async () => {
    const { sub, auth } = await principal();
    for (const key of [
      "k",
      "~".repeat(255),
      "!#$%&'()*+,-./:;<=>?@[\\]^_`{|}\"",
      "8e0f7a2c-6b7d-4f2e-9c1a-0d3b5e6f7a8b",
    ]) {
      const response = await post(auth, "/card_orders", key, newCardOrder);
      expect(response.status).toBe(201);
      expect(await storedKey(sub, key)).toMatchObject({ body: await response.text() });
    }
  });

  it("treats the same key under another path as another request: POST /card_orders, then /invoices", async () => {
    const { auth } = await principal();
    const key = unique("key");
    const first = await post(auth, "/card_orders", key, newCardOrder);
    const order = ((await first.json()) as any).data[0];

    const before = await snapshot();
    await expectError(await post(auth, "/invoices", key, { order_id: order.id }), 422, {
      code: "idempotency_key_reused",
      source: { header: HEADER },
    });
    expect(await snapshot()).toStrictEqual(before);
  });

  it("treats the same key and body from the same sub for another customer as a different request", async () => {
    const { sub, auth } = await principal();
    const key = unique("key");
    expect((await post(auth, "/card_orders", key, newCardOrder)).status).toBe(201);

    const otherTenant = await token({ sub, customer_id: unique("customer") });
    const before = await snapshot();
    await expectError(await post(otherTenant, "/card_orders", key, newCardOrder), 422, {
      code: "idempotency_key_reused",
      source: { header: HEADER },
    });
    expect(await snapshot()).toStrictEqual(before);
  });

  it("replays the first response even after the resource has changed since", async () => {
    const { auth } = await principal();
    const key = unique("key");
    const first = await post(auth, "/card_orders", key, newCardOrder);
    const firstText = await first.text();
    const order = JSON.parse(firstText).data[0];
    await transition(auth, `/card_orders/${order.id}/cancel`);

    const replay = await post(auth, "/card_orders", key, newCardOrder);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.text()).toBe(firstText);
    expect(JSON.parse(firstText).data[0].state).toBe("draft");
  });

  it("replays a POST /invoices without taking another invoice number", async () => {
    const { customer, auth } = await principal();
    const order = await orderIn(auth, "submitted");
    const key = unique("key");
    const first = await post(auth, "/invoices", key, { order_id: order.id });
    const invoice = ((await first.json()) as any).data[0];
    const year = businessYear(invoice.created_at);
    const taken = await lastNumber("INV", year);
    expect(invoice.number).toBe(`INV-${year}-${String(taken).padStart(6, "0")}`);

    for (let i = 0; i < 3; i++)
      expect((await post(auth, "/invoices", key, { order_id: order.id })).headers.get("Idempotent-Replayed")).toBe(
        "true",
      );
    expect(await lastNumber("INV", year)).toBe(taken);
    expect(await countOf("invoices WHERE customer_id = ?", customer)).toBe(1);
  });

  it("replays a POST /invoices/{id}/cancel without taking another cancellation number", async () => {
    const { auth } = await principal();
    const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
    const key = unique("key");
    const first = await post(auth, `/invoices/${invoice.id}/cancel`, key);
    const cancelled = ((await first.json()) as any).data;
    const year = businessYear(cancelled.cancelled_at);
    const taken = await lastNumber("CN", year);
    expect(cancelled.cancellation_number).toBe(`CN-${year}-${String(taken).padStart(6, "0")}`);

    const replay = await post(auth, `/invoices/${invoice.id}/cancel`, key);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    await expectJson(replay, 200, { data: cancelled });
    expect(await lastNumber("CN", year)).toBe(taken);
  });

  it("does not store a refused request: the key stays free for the corrected one", async () => {
    const { sub, auth } = await principal();
    const key = unique("key");
    await expectError(await post(auth, "/card_orders", key, { voucher_category: "mixed" }), 422, {
      code: "validation_failed",
      source: { pointer: "/payment_method" },
    });
    const cancelled = await orderIn(auth, "draft");
    await transition(auth, `/card_orders/${cancelled.id}/cancel`);
    await expectError(await post(auth, "/invoices", key, { order_id: cancelled.id }), 409, { code: "invalid_state" });
    expect(await storedKey(sub, key)).toBeNull();

    const corrected = await post(auth, "/card_orders", key, newCardOrder);
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("never deduplicates requests without the header: two identical POSTs create two orders", async () => {
    const { sub, customer, auth } = await principal();
    const first = ((await (await post(auth, "/card_orders", undefined, newCardOrder)).json()) as any).data[0];
    const second = ((await (await post(auth, "/card_orders", undefined, newCardOrder)).json()) as any).data[0];
    expect(second.id).not.toBe(first.id);
    expect(await countOf("card_orders WHERE customer_id = ?", customer)).toBe(2);
    expect(await countOf("idempotency_keys WHERE principal = ?", sub)).toBe(0);
  });
});

// The request a key stands for: method, path, query string, customer and the body as JSON
// (docs/api.md part 7).
describe("the request a key stands for", () => {
  /** A keyed POST of exactly this body text. */
  const postText = (auth: string, path: string, key: string, text: string) =>
    call(path, {
      method: "POST",
      token: auth,
      body: text,
      headers: { "Content-Type": "application/json", [HEADER]: key },
    });

  const order = {
    voucher_category: "mixed",
    payment_method: "bank_transfer",
    description: "Team vouchers",
    cost_center: null,
  };

  it.each([
    ["pretty-printed", JSON.stringify(order, null, 2)],
    [
      "with its keys in another order",
      JSON.stringify({
        cost_center: null,
        description: "Team vouchers",
        payment_method: "bank_transfer",
        voucher_category: "mixed",
      }),
    ],
    [
      "with escapes and spaces",
      ' {"voucher_category" :"mi\\u0078ed","payment_method":"bank_transfer",\r\n' +
        '"description":"Team\\u0020vouchers","cost_center":null}\n',
    ],
  ])("is the same for the same body %s: replayed, nothing written", async (_, text) => {
    const { auth } = await principal();
    const key = unique("key");
    const first = await postText(auth, "/card_orders", key, JSON.stringify(order));
    const firstText = await first.text();
    expect(first.status).toBe(201);

    const before = await snapshot();
    const replay = await postText(auth, "/card_orders", key, text);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.text()).toBe(firstText);
    expect(await snapshot()).toStrictEqual(before);
  });

  it.each([
    ["another value", { ...order, description: "Team vouchers 2" }],
    ["another type: a string for null", { ...order, cost_center: "null" }],
    ["a field left out", { voucher_category: "mixed", payment_method: "bank_transfer", description: "Team vouchers" }],
  ])("differs for a body with %s: 422 idempotency_key_reused, nothing written", async (_, other) => {
    const { auth } = await principal();
    const key = unique("key");
    expect((await post(auth, "/card_orders", key, order)).status).toBe(201);

    const before = await snapshot();
    await expectError(await post(auth, "/card_orders", key, other), 422, {
      code: "idempotency_key_reused",
      source: { header: HEADER },
    });
    expect(await snapshot()).toStrictEqual(before);
  });

  it.each([
    ["?source=app", "?source=web"],
    ["?source=app", ""],
    ["", "?source=app"],
    ["?a=1&b=2", "?b=2&a=1"],
  ])("differs for another query string (%j, then %j): 422, not the first request's links", async (first, second) => {
    const { auth } = await principal();
    const key = unique("key");
    const created = await post(auth, `/card_orders${first}`, key, order);
    expect((await created.json()) as any).toMatchObject({ links: { self: `${BASE}/card_orders${first}` } });

    const before = await snapshot();
    await expectError(await post(auth, `/card_orders${second}`, key, order), 422, {
      code: "idempotency_key_reused",
      source: { header: HEADER },
    });
    expect(await snapshot()).toStrictEqual(before);
    // The same query string is the same request.
    const replay = await post(auth, `/card_orders${first}`, key, order);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
  });
});

describe("an expired stored response", () => {
  const expire = (sub: string, key: string) =>
    env.DB.prepare("UPDATE idempotency_keys SET expires_at = ? WHERE principal = ? AND key = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), sub, key)
      .run();

  it("is not replayed: the request runs again and the key holds the new response for 24 hours", async () => {
    const { sub, customer, auth } = await principal();
    const key = unique("key");
    const first = await post(auth, "/card_orders", key, newCardOrder);
    const firstText = await first.text();
    expect((await expire(sub, key)).meta.changes).toBe(1);

    const again = await post(auth, "/card_orders", key, newCardOrder);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
    const againText = await again.text();
    expect(JSON.parse(againText).data[0].id).not.toBe(JSON.parse(firstText).data[0].id);
    expect(await countOf("card_orders WHERE customer_id = ?", customer)).toBe(2);

    const stored = await storedKey(sub, key);
    expect(stored).toMatchObject({ status: 201, body: againText });
    expect(Date.parse(stored!.expires_at)).toBeGreaterThan(Date.now() + DAY_MS - 60_000);
    // And that new response is what the key replays from now on.
    const replay = await post(auth, "/card_orders", key, newCardOrder);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.text()).toBe(againText);
  });

  it("does not make a different request a reuse: a row inserted directly with a past expiry gives way", async () => {
    const { sub, customer, auth } = await principal();
    const key = unique("key");
    await env.DB.prepare(
      "INSERT INTO idempotency_keys (principal, key, request_hash, status, body, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
    )
      .bind(sub, key, "0".repeat(64), 201, '{"stale":true}', "2020-01-01T00:00:00.000Z")
      .run();

    const response = await post(auth, "/card_orders", key, { ...newCardOrder, description: "fresh" });
    const body = await expectJson(
      response,
      201,
      singlePage("/card_orders", [expect.objectContaining({ customer, description: "fresh" })]),
    );
    expect(response.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await countOf("card_orders WHERE customer_id = ?", customer)).toBe(1);
    expect(await countOf("idempotency_keys WHERE principal = ?", sub)).toBe(1);
    expect(await storedKey(sub, key)).toMatchObject({ status: 201, body: JSON.stringify(body) });
  });

  it("does not replay a transition: it runs again and is refused by the state", async () => {
    const { sub, auth } = await principal();
    const order = await orderIn(auth, "draft");
    const key = unique("key");
    expect((await post(auth, `/card_orders/${order.id}/submit`, key)).status).toBe(200);
    await expire(sub, key);

    await expectError(await post(auth, `/card_orders/${order.id}/submit`, key), 409, { code: "invalid_state" });
  });
});

/** A keyed POST, answered as status, replay header and body text, for requests fired together. */
async function fetchWorker(auth: string, path: string, key: string, json: unknown, bindings: Bindings = {}) {
  const response = await call(path, { method: "POST", token: auth, json, headers: { [HEADER]: key }, env: bindings });
  return {
    status: response.status,
    replayed: response.headers.get("Idempotent-Replayed"),
    text: await response.text(),
  };
}

type Answer = Awaited<ReturnType<typeof fetchWorker>>;

describe("concurrent requests with the same key", () => {
  const race = (auth: string, path: string, key: string, json: unknown) =>
    Promise.all(Array.from({ length: 10 }, () => fetchWorker(auth, path, key, json)));

  /** One response sent fresh; every other answer is that response replayed, or a 409 conflict. */
  function expectOneOutcome(answers: Answer[], stored: string) {
    const fresh = answers.filter((a) => a.status === 201 && a.replayed === null);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.text).toBe(stored);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.text).toBe(stored);
      else
        expect({ status: answer.status, body: JSON.parse(answer.text) }).toStrictEqual({
          status: 409,
          body: { errors: [{ detail: expect.stringMatching(/\S/), code: "conflict", source: {} }] },
        });
    }
  }

  it("create exactly one card order", { timeout: 60_000 }, async () => {
    const { sub, customer, auth } = await principal();
    const key = unique("key");
    const answers = await race(auth, "/card_orders", key, newCardOrder);

    expect(await countOf("card_orders WHERE customer_id = ?", customer)).toBe(1);
    expect(await countOf("idempotency_keys WHERE principal = ?", sub)).toBe(1);
    expectOneOutcome(answers, (await storedKey(sub, key))!.body);
  });

  it("create exactly one invoice and take exactly one number, keeping the sequence gapless", {
    timeout: 60_000,
  }, async () => {
    const { sub, customer, auth } = await principal();
    const order = await orderIn(auth, "submitted");
    const year = businessYear();
    const before = await lastNumber("INV", year);
    const key = unique("key");
    const answers = await race(auth, "/invoices", key, { order_id: order.id });

    expect(await countOf("invoices WHERE customer_id = ?", customer)).toBe(1);
    expect(await lastNumber("INV", year)).toBe(before + 1);
    const stored = (await storedKey(sub, key))!.body;
    const [invoice] = JSON.parse(stored).data;
    expect(businessYear(invoice.created_at)).toBe(year);
    expect(invoice.number).toBe(`INV-${year}-${String(before + 1).padStart(6, "0")}`);
    expectOneOutcome(answers, stored);
  });
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A D1 binding that forces the interleaving of a duplicate arriving while the first request is in
 * flight: both read (the key lookup rides with the handler's reads) before either writes, so the
 * second finds the key free and then loses its write to the first.
 */
function inFlightDuplicateDb(): { DB: D1Database; opened: string[] } {
  const opened: string[] = [];
  let keyLookups = 0;
  const bothLookedUp = deferred();
  const isKeyLookup = (query: string) => query.includes('from "idempotency_keys"');
  const isWrite = (query: string) => /^\s*(insert|update|delete)\b/i.test(query);
  const DB = {
    withSession(start: D1SessionBookmark | D1SessionConstraint) {
      opened.push(start);
      const session = env.DB.withSession(start);
      const lookedUp = (queries: string[]) => {
        keyLookups += queries.filter(isKeyLookup).length;
        if (keyLookups >= 2) bothLookedUp.resolve();
      };
      return {
        prepare(query: string) {
          const wrap = (inner: D1PreparedStatement): object => ({
            inner,
            query,
            bind: (...values: unknown[]) => wrap(inner.bind(...values)),
            run: () => inner.run(),
            async all() {
              const result = await inner.all();
              lookedUp([query]);
              return result;
            },
          });
          return wrap(session.prepare(query));
        },
        async batch(statements: { inner: D1PreparedStatement; query: string }[]) {
          const queries = statements.map((s) => s.query);
          if (queries.some(isWrite)) await bothLookedUp.promise;
          const results = await session.batch(statements.map((s) => s.inner));
          lookedUp(queries);
          return results;
        },
        getBookmark: () => session.getBookmark(),
      };
    },
  } as unknown as D1Database;
  return { DB, opened };
}

// docs/api.md part 7: the same key, principal and body replays the first response. A duplicate sent
// while the first is still running (a client retrying after a timeout) must not be told that its
// own write conflicts with itself.
describe("a duplicate that arrives while the first request is in flight", () => {
  it("POST /invoices: gets the first response replayed, and only one invoice exists", { timeout: 60_000 }, async () => {
    const { sub, customer, auth } = await principal();
    const order = await orderIn(auth, "submitted");
    const key = unique("key");
    const { DB, opened } = inFlightDuplicateDb();
    const answers = await Promise.all(
      [0, 1].map(() => fetchWorker(auth, "/invoices", key, { order_id: order.id }, { DB })),
    );
    // The loser reads the winner's response from a session of its own at the primary, which a
    // replica may not have caught up with yet.
    expect(opened).toStrictEqual(["first-primary", "first-primary", "first-primary"]);

    expect(await countOf("invoices WHERE customer_id = ?", customer)).toBe(1);
    const stored = (await storedKey(sub, key))!.body;
    expect(answers.map(({ status, text }) => ({ status, text }))).toStrictEqual([
      { status: 201, text: stored },
      { status: 201, text: stored },
    ]);
    expect(answers.map((a) => a.replayed).sort()).toStrictEqual([null, "true"]);
  });

  it("POST /card_orders/{id}/submit: gets the first response replayed, not 409 invalid_state", {
    timeout: 60_000,
  }, async () => {
    const { sub, auth } = await principal();
    const order = await orderIn(auth, "draft");
    const key = unique("key");
    const { DB } = inFlightDuplicateDb();
    const answers = await Promise.all(
      [0, 1].map(() => fetchWorker(auth, `/card_orders/${order.id}/submit`, key, undefined, { DB })),
    );

    const stored = (await storedKey(sub, key))!.body;
    expect(JSON.parse(stored).data.state).toBe("submitted");
    expect(answers.map(({ status, text }) => ({ status, text }))).toStrictEqual([
      { status: 200, text: stored },
      { status: 200, text: stored },
    ]);
    expect(answers.map((a) => a.replayed).sort()).toStrictEqual([null, "true"]);
  });
});
