import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, expectError, newBillingProfile, send, token, withBillingProfile } from "./support/api";
import { FaultyD1, type FaultMode } from "./support/faulty-d1";
import { ROUTES, routeName, routeOf, WRITE_ROUTES } from "./support/routes";

// docs/api.md parts 3 and 7: when the database fails, the client gets 503 `unavailable` with
// Retry-After, nothing is half-written, and a retry stores the request's effects exactly once.
// Every route of the route table (src/app.ts) has a case here, or the first test fails: a write
// all of the above, a read a 503 and nothing stored, a public route no database call at all.

const TEST_TIMEOUT_MS = 120_000;

// Every table a write can touch, with its primary key.
const TABLES = {
  card_orders: ["id"],
  card_order_entries: ["id"],
  invoices: ["id"],
  list_counts: ["list", "scope", "filter"],
  number_sequences: ["series", "year"],
  notification_tokens: ["owner_id", "device_identifier"],
  idempotency_keys: ["principal", "key"],
  events: ["id"],
  webhook_endpoints: ["id"],
  invoice_lines: ["invoice_id", "position"],
  billing_profiles: ["customer_id"],
} as const;

type Row = Record<string, unknown>;
type Snapshot = Record<string, Map<string, Row>>;

async function snapshot(): Promise<Snapshot> {
  const names = Object.keys(TABLES) as (keyof typeof TABLES)[];
  const results = await env.DB.batch(names.map((table) => env.DB.prepare(`SELECT * FROM ${table}`)));
  const tables: Snapshot = {};
  names.forEach((table, i) => {
    const rows = results[i]!.results as Row[];
    tables[table] = new Map(rows.map((row) => [JSON.stringify(TABLES[table].map((column) => row[column])), row]));
  });
  return tables;
}

/** What happened to the database between two snapshots: rows added, removed and changed. */
function effects(before: Snapshot, after: Snapshot): unknown[] {
  const found: unknown[] = [];
  for (const table of Object.keys(TABLES)) {
    const [old, now] = [before[table]!, after[table]!];
    for (const [key, row] of now) {
      const previous = old.get(key);
      if (!previous) {
        found.push({ table, added: row });
        continue;
      }
      const changes: Record<string, unknown> = {};
      for (const [column, value] of Object.entries(row)) {
        const was = previous[column];
        if (was === value) continue;
        // Counters and sequences: how far they moved is the effect, not where they stand.
        changes[column] =
          typeof was === "number" && typeof value === "number" ? { delta: value - was } : { from: was, to: value };
      }
      if (Object.keys(changes).length > 0) found.push({ table, key, changes });
    }
    for (const [key, row] of old) if (!now.has(key)) found.push({ table, removed: row });
  }
  return found;
}

/** A fresh name of a kind: the kind survives normalisation, the random part does not. */
const fresh = (kind: "customer" | "owner" | "other" | "key" | "value") => `${kind}-${crypto.randomUUID().slice(0, 8)}`;

// Two runs of one request on like preconditions differ only in generated ids, times, names, hashes,
// secrets (a webhook endpoint's; what is stored sealed) and the number they took; with those
// replaced, "all effects" of both runs are the same text.
function normalize(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text
    .replace(/\b(customer|owner|other|key|value)-[0-9a-f]{8}\b/g, "<$1>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/\b[0-9a-f]{64}\b/g, "<hash>")
    .replace(/\bwhsec_[\w+/=]+/g, "<secret>")
    .replace(/\bv2\.[\w+/=]+\.[\w+/=]+/g, "<sealed>")
    .replace(/\b(INV|CN)-(\d{4})-\d{6}\b/g, "$1-$2-<n>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, "<ts>")
    .replace(/\d{4}-\d{2}-\d{2}/g, "<date>");
}

const normalizedEffects = (before: Snapshot, after: Snapshot): string[] => effects(before, after).map(normalize).sort();

interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Sends a prepared request to the Worker with `db` as its D1 binding. */
const sendWith = ({ method, path, headers, body }: Prepared, db: D1Database): Promise<Response> =>
  send(new Request(BASE + path, { method, headers, body }), { DB: db });

const withAuth = (auth: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${auth}`, ...extra });
const jsonRequest = (method: string, path: string, auth: string, json: object): Prepared => ({
  method,
  path,
  headers: withAuth(auth, { "Content-Type": "application/json" }),
  body: JSON.stringify(json),
});
const bodyless = (method: string, path: string, auth: string): Prepared => ({ method, path, headers: withAuth(auth) });

const principal = async () => token({ sub: fresh("owner"), customer_id: fresh("customer") });

async function setUp(method: string, path: string, auth: string, json?: object): Promise<any> {
  const response = await sendWith(json ? jsonRequest(method, path, auth, json) : bodyless(method, path, auth), env.DB);
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return response.status === 204 ? undefined : response.json();
}

const ENTRY = { voucher_owner_id: "owner-1", card_holder_name: "Grace Hopper", amount: "40.00" };

/** A card order with two entries, led through `actions`. */
async function orderIn(auth: string, ...actions: string[]): Promise<{ id: string }> {
  await withBillingProfile(auth);
  const order = (
    await setUp("POST", "/card_orders", auth, {
      voucher_category: "meal",
      payment_method: "direct_debit",
      cost_center: "CC-1",
    })
  ).data[0];
  for (const amount of ["40.00", "12.34"])
    await setUp("POST", `/card_orders/${order.id}/entries`, auth, { ...ENTRY, amount });
  for (const action of actions) await setUp("POST", `/card_orders/${order.id}/${action}`, auth);
  return order;
}

async function createInvoice(auth: string, orderId: string, reference?: string): Promise<{ id: string }> {
  return (await setUp("POST", "/invoices", auth, { order_id: orderId, reference })).data[0];
}

async function registerToken(auth: string, value: string, device: string) {
  await setUp("PUT", "/voucher_owners/me/notification_tokens", auth, { value, device_identifier: device });
}

interface WriteCase {
  /** Its route in the route table (test/support/routes.ts). */
  route: string;
  /** Which of the route's paths through the database, when a route has several worth failing apart. */
  variant?: string;
  status: 200 | 201 | 204;
  /** What the request answers when it runs again after it ran (DELETE of an entry: 404, docs/api.md part 10). */
  repeated?: 404;
  /** Fresh preconditions, and the request to run on them. */
  prepare: () => Promise<Prepared>;
}

const transition =
  (action: string, ...before: string[]) =>
  async () => {
    const auth = await principal();
    const order = await orderIn(auth, ...before);
    return bodyless("POST", `/card_orders/${order.id}/${action}`, auth);
  };

const invoiceTransition = (action: string) => async () => {
  const auth = await principal();
  const invoice = await createInvoice(auth, (await orderIn(auth, "submit")).id, "ref");
  return bodyless("POST", `/invoices/${invoice.id}/${action}`, auth);
};

const CASES: WriteCase[] = [
  {
    route: "POST /card_orders",
    status: 201,
    prepare: async () =>
      jsonRequest("POST", "/card_orders", await principal(), {
        voucher_category: "gift",
        description: "fault",
        invoice_reference: "PO-1",
        cost_center: "CC-9",
        payment_method: "bank_transfer",
      }),
  },
  {
    route: "POST /invoices",
    status: 201,
    prepare: async () => {
      const auth = await principal();
      return jsonRequest("POST", "/invoices", auth, { order_id: (await orderIn(auth, "submit")).id, reference: "R-1" });
    },
  },
  {
    route: "POST /card_orders/{id}/entries",
    status: 201,
    prepare: async () => {
      const auth = await principal();
      return jsonRequest("POST", `/card_orders/${(await orderIn(auth)).id}/entries`, auth, ENTRY);
    },
  },
  {
    route: "DELETE /card_orders/{id}/entries/{entry_id}",
    status: 204,
    repeated: 404,
    prepare: async () => {
      const auth = await principal();
      const order = await orderIn(auth);
      const entry = (await setUp("POST", `/card_orders/${order.id}/entries`, auth, ENTRY)).data[0];
      return bodyless("DELETE", `/card_orders/${order.id}/entries/${entry.id}`, auth);
    },
  },
  { route: "POST /card_orders/{id}/submit", status: 200, prepare: transition("submit") },
  {
    route: "POST /card_orders/{id}/cancel",
    variant: "with an open invoice, which it cancels",
    status: 200,
    prepare: async () => {
      const auth = await principal();
      const order = await orderIn(auth, "submit");
      await createInvoice(auth, order.id);
      return bodyless("POST", `/card_orders/${order.id}/cancel`, auth);
    },
  },
  { route: "POST /card_orders/{id}/cancel", status: 200, prepare: transition("cancel", "submit") },
  { route: "POST /card_orders/{id}/start_production", status: 200, prepare: transition("start_production", "submit") },
  {
    route: "POST /card_orders/{id}/deliver",
    status: 200,
    prepare: transition("deliver", "submit", "start_production"),
  },
  { route: "POST /invoices/{id}/pay", status: 200, prepare: invoiceTransition("pay") },
  { route: "POST /invoices/{id}/cancel", status: 200, prepare: invoiceTransition("cancel") },
  {
    route: "PUT /voucher_owners/me/notification_tokens",
    variant: "new registration",
    status: 204,
    prepare: async () =>
      jsonRequest("PUT", "/voucher_owners/me/notification_tokens", await principal(), {
        value: fresh("value"),
        device_identifier: "phone",
      }),
  },
  {
    route: "PUT /voucher_owners/me/notification_tokens",
    variant: "replacement",
    status: 204,
    prepare: async () => {
      const auth = await principal();
      await registerToken(auth, fresh("value"), "phone");
      return jsonRequest("PUT", "/voucher_owners/me/notification_tokens", auth, {
        value: fresh("value"),
        device_identifier: "phone",
      });
    },
  },
  {
    route: "PUT /voucher_owners/me/notification_tokens",
    variant: "value moving from another owner",
    status: 204,
    prepare: async () => {
      const value = fresh("value");
      await registerToken(await token({ sub: fresh("other") }), value, "tablet");
      return jsonRequest("PUT", "/voucher_owners/me/notification_tokens", await principal(), {
        value,
        device_identifier: "phone",
      });
    },
  },
  {
    route: "PUT /voucher_owners/me/notification_tokens",
    variant: "a 21st device, replacing the least recently updated",
    status: 204,
    prepare: async () => {
      const auth = await principal();
      for (let i = 0; i < 20; i++) await registerToken(auth, fresh("value"), `device-${i}`);
      return jsonRequest("PUT", "/voucher_owners/me/notification_tokens", auth, {
        value: fresh("value"),
        device_identifier: "device-new",
      });
    },
  },
  {
    route: "DELETE /voucher_owners/me/notification_tokens/{device_identifier}",
    status: 204,
    prepare: async () => {
      const auth = await principal();
      await registerToken(auth, fresh("value"), "phone");
      await registerToken(auth, fresh("value"), "tablet");
      return bodyless("DELETE", "/voucher_owners/me/notification_tokens/phone", auth);
    },
  },
  {
    route: "POST /webhook_endpoints",
    status: 201,
    prepare: async () =>
      jsonRequest("POST", "/webhook_endpoints", await principal(), {
        url: "https://hooks.example/fault",
        event_types: ["*"],
      }),
  },
  {
    route: "DELETE /webhook_endpoints/{id}",
    status: 204,
    repeated: 404,
    prepare: async () => {
      const auth = await principal();
      const body = { url: "https://hooks.example/fault", event_types: ["invoice.paid"] };
      const hook = (await setUp("POST", "/webhook_endpoints", auth, body)).data[0];
      return bodyless("DELETE", `/webhook_endpoints/${hook.id}`, auth);
    },
  },
];

CASES.push(
  {
    route: "PUT /customers/me/billing_profile",
    variant: "the first",
    status: 200,
    prepare: async () => jsonRequest("PUT", "/customers/me/billing_profile", await principal(), newBillingProfile),
  },
  {
    route: "PUT /customers/me/billing_profile",
    variant: "a replacement",
    status: 200,
    prepare: async () => {
      const auth = await principal();
      await withBillingProfile(auth);
      return jsonRequest("PUT", "/customers/me/billing_profile", auth, { ...newBillingProfile, vat_id: null });
    },
  },
);

const WRITES = CASES.map((write) => ({
  ...write,
  name: write.variant === undefined ? write.route : `${write.route} (${write.variant})`,
}));

/** A route that only reads: its request on fresh preconditions. */
interface ReadCase {
  route: string;
  prepare: () => Promise<Prepared>;
  /** Puts back what a successful run left outside D1 (a document stored in R2), before each run. */
  reset?: (request: Prepared) => Promise<void>;
}

/** An e-invoice read: each run renders it again (R2 emptied first), so each of its D1 calls is reached. */
const documentRead = (path: string, key: string, ...invoiceActions: string[]): ReadCase => ({
  route: `GET /invoices/{id}/${path}`,
  prepare: async () => {
    const auth = await principal();
    const invoice = await createInvoice(auth, (await orderIn(auth, "submit")).id);
    for (const action of invoiceActions) await setUp("POST", `/invoices/${invoice.id}/${action}`, auth);
    return bodyless("GET", `/invoices/${invoice.id}/${path}?format=cii`, auth);
  },
  reset: async (request) => {
    await env.DOCUMENTS.delete(`invoices/${request.path.split("/")[2]}/${key}.cii`);
  },
});

const listAfter = (path: string, setup: (auth: string) => Promise<unknown>) => async () => {
  const auth = await principal();
  await setup(auth);
  return bodyless("GET", path, auth);
};

const READS: ReadCase[] = [
  { route: "GET /card_orders", prepare: listAfter("/card_orders", (auth) => orderIn(auth)) },
  {
    route: "GET /card_orders/{id}",
    prepare: async () => {
      const auth = await principal();
      return bodyless("GET", `/card_orders/${(await orderIn(auth)).id}`, auth);
    },
  },
  {
    route: "GET /card_orders/{id}/entries",
    prepare: async () => {
      const auth = await principal();
      return bodyless("GET", `/card_orders/${(await orderIn(auth)).id}/entries`, auth);
    },
  },
  {
    route: "GET /invoices",
    prepare: listAfter("/invoices", async (auth) => createInvoice(auth, (await orderIn(auth, "submit")).id)),
  },
  {
    route: "GET /invoices/{id}",
    prepare: async () => {
      const auth = await principal();
      const invoice = await createInvoice(auth, (await orderIn(auth, "submit")).id);
      return bodyless("GET", `/invoices/${invoice.id}`, auth);
    },
  },
  {
    route: "GET /voucher_owners/me/notification_tokens",
    prepare: listAfter("/voucher_owners/me/notification_tokens", (auth) =>
      registerToken(auth, fresh("value"), "phone"),
    ),
  },
  { route: "GET /events", prepare: listAfter("/events", (auth) => orderIn(auth, "submit")) },
  {
    route: "GET /webhook_endpoints",
    prepare: listAfter("/webhook_endpoints", (auth) =>
      setUp("POST", "/webhook_endpoints", auth, { url: "https://hooks.example/fault", event_types: ["*"] }),
    ),
  },
  {
    route: "GET /customers/me/billing_profile",
    prepare: listAfter("/customers/me/billing_profile", withBillingProfile),
  },
  {
    route: "GET /invoices/{id}/lines",
    prepare: async () => {
      const auth = await principal();
      const invoice = await createInvoice(auth, (await orderIn(auth, "submit")).id);
      return bodyless("GET", `/invoices/${invoice.id}/lines`, auth);
    },
  },
  documentRead("document", "invoice"),
  documentRead("credit_note", "credit_note", "cancel"),
];

// Public routes use no database (src/http/mount.ts): they are checked to make no call at all.
const PUBLIC_ROUTES = ROUTES.filter((spec) => spec.access === undefined).map((spec) => ({
  route: routeName(spec),
  request: { method: spec.method.toUpperCase(), path: spec.path, headers: {} },
}));

describe("the cases of this file", () => {
  it("cover every route of the route table, and name no other", () => {
    const covered = new Set([...CASES, ...READS, ...PUBLIC_ROUTES].map(({ route }) => route));
    const routes = ROUTES.map(routeName);
    const missing = routes.filter((route) => !covered.has(route));
    expect(missing, `routes without a case here: ${missing.join(", ")}`).toStrictEqual([]);
    expect([...covered].filter((route) => !routes.includes(route))).toStrictEqual([]);
    // A write's cases are the thorough ones: a read case does not stand in for one.
    const writes = new Set(WRITE_ROUTES.map(routeName));
    expect(READS.filter(({ route }) => writes.has(route)).map(({ route }) => route)).toStrictEqual([]);
  });
});

const KEY_VARIANTS = [
  ["without an Idempotency-Key", false],
  ["with an Idempotency-Key", true],
] as const;

async function prepared(write: WriteCase, withKey: boolean): Promise<Prepared> {
  const request = await write.prepare();
  if (withKey) request.headers["Idempotency-Key"] = fresh("key");
  return request;
}

interface CleanRun {
  calls: number;
  body: string;
  effects: string[];
}

/** Runs the request once without faults: how many calls it makes, what it answers, what it stores. */
async function cleanRun(write: WriteCase, withKey: boolean): Promise<CleanRun> {
  const request = await prepared(write, withKey);
  const route = routeOf(request.method, BASE + request.path);
  expect(route && routeName(route), "the route the case's request reaches").toBe(write.route);
  const before = await snapshot();
  const db = new FaultyD1(env.DB);
  const response = await sendWith(request, db.binding);
  const body = await response.text();
  expect({ status: response.status, body }).toMatchObject({ status: write.status });
  const clean = { calls: db.count, body: normalize(body), effects: normalizedEffects(before, await snapshot()) };
  expect(clean.calls).toBeGreaterThan(0);
  expect(clean.effects.length).toBeGreaterThan(0);
  // docs/api.md part 7: all of a request's writes go in one batch, its last database call.
  const writing = db.calls.filter((c) =>
    c.sql.some((statement) => /^\s*(insert|update|delete|replace)\b/i.test(statement)),
  );
  expect(writing.map((c) => [c.number, c.kind])).toStrictEqual([[db.count, "batch"]]);
  return clean;
}

async function expectUnavailable(response: Response) {
  await expectError(response, 503, { code: "unavailable", source: {} });
  expect(response.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
}

/** Numbers of both series are 1..last of their year, each once: no gap, no duplicate. */
async function expectGaplessNumbers() {
  const { results: sequences } = await env.DB.prepare("SELECT series, year, last FROM number_sequences").all<{
    series: string;
    year: number;
    last: number;
  }>();
  const { results: taken } = await env.DB.prepare(
    "SELECT number AS n FROM invoices " +
      "UNION ALL SELECT cancellation_number AS n FROM invoices WHERE cancellation_number IS NOT NULL",
  ).all<{ n: string }>();
  const byYear = new Map<string, number[]>();
  for (const { n } of taken) {
    const [, series, year, seq] = /^(INV|CN)-(\d{4})-(\d{6})$/.exec(n) ?? [];
    expect(series, `malformed number ${n}`).toBeDefined();
    byYear.set(`${series}-${Number(year)}`, [...(byYear.get(`${series}-${Number(year)}`) ?? []), Number(seq)]);
  }
  expect(new Set(byYear.keys())).toStrictEqual(new Set(sequences.map((s) => `${s.series}-${s.year}`)));
  for (const { series, year, last } of sequences) {
    const numbers = byYear.get(`${series}-${year}`)!.sort((a, b) => a - b);
    expect(numbers, `${series} ${year}`).toStrictEqual(Array.from({ length: last }, (_, i) => i + 1));
  }
}

beforeAll(async () => {
  // Both number series exist before any measured run, so every run moves them the same way (+1).
  const auth = await principal();
  const invoice = await createInvoice(auth, (await orderIn(auth, "submit")).id);
  await setUp("POST", `/invoices/${invoice.id}/cancel`, auth);
});

describe.each(WRITES)("$name", (write) => {
  it.each(KEY_VARIANTS)(
    "%s: whichever database call fails, 503 unavailable, nothing stored, and a retry stores it exactly once",
    async (_, withKey) => {
      const clean = await cleanRun(write, withKey);

      for (let k = 1; k <= clean.calls; k++) {
        const request = await prepared(write, withKey);
        const before = await snapshot();
        const faulty = new FaultyD1(env.DB).failCall(k);
        const failed = await sendWith(request, faulty.binding);
        expect(faulty.injected, `call ${k} of ${clean.calls} was made and failed`).toBe(1);
        await expectUnavailable(failed);
        expect(
          normalizedEffects(before, await snapshot()),
          `effects after call ${k} of ${clean.calls} failed`,
        ).toStrictEqual([]);

        const retry = await sendWith(request, new FaultyD1(env.DB).binding);
        const body = await retry.text();
        expect({ status: retry.status, body: normalize(body) }, `retry after call ${k} failed`).toStrictEqual({
          status: write.status,
          body: clean.body,
        });
        expect(retry.headers.has("Idempotent-Replayed"), "a retry after a failure is not a replay").toBe(false);
        expect(normalizedEffects(before, await snapshot()), `effects after the retry of call ${k}`).toStrictEqual(
          clean.effects,
        );
        await expectGaplessNumbers();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

// The harder failure: the database did the work, but its answer was lost. The client sees 503 and
// cannot know; a batch that ran must have run whole, and the retry must not do it twice. Only an
// Idempotency-Key makes a retried POST safe; PUT and DELETE are idempotent by themselves.
const LOST_ANSWER_CASES = WRITES.flatMap((write) =>
  KEY_VARIANTS.filter(([, withKey]) => withKey || !write.route.startsWith("POST")).map(([variant, withKey]) => ({
    write,
    variant,
    withKey,
  })),
);

describe.each(LOST_ANSWER_CASES)("$write.name, $variant, the answer of a database call lost", ({ write, withKey }) => {
  it(
    "answers 503; the stored effects are all or none, and a retry leaves them exactly once",
    async () => {
      const clean = await cleanRun(write, withKey);
      const mode: FaultMode = "after";

      for (let k = 1; k <= clean.calls; k++) {
        const request = await prepared(write, withKey);
        const before = await snapshot();
        const faulty = new FaultyD1(env.DB).failCall(k, mode);
        await expectUnavailable(await sendWith(request, faulty.binding));
        expect(faulty.injected).toBe(1);
        // Only the last call writes (one batch); a lost read leaves nothing behind.
        const stored = normalizedEffects(before, await snapshot());
        expect(stored, `effects after the answer of call ${k} of ${clean.calls} was lost`).toStrictEqual(
          k === clean.calls ? clean.effects : [],
        );

        const retry = await sendWith(request, new FaultyD1(env.DB).binding);
        if (write.repeated && k === clean.calls) {
          await expectError(retry, write.repeated, { code: "not_found" });
        } else {
          const body = await retry.text();
          expect(
            { status: retry.status, body: normalize(body) },
            `retry after call ${k} lost its answer`,
          ).toStrictEqual({ status: write.status, body: clean.body });
        }
        const replayed = withKey && write.route.startsWith("POST") && k === clean.calls;
        expect(retry.headers.get("Idempotent-Replayed"), "the stored response is replayed").toBe(
          replayed ? "true" : null,
        );
        expect(normalizedEffects(before, await snapshot()), `effects after the retry of call ${k}`).toStrictEqual(
          clean.effects,
        );
        await expectGaplessNumbers();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe.each(READS)("$route", (read) => {
  it(
    "whichever database call fails or loses its answer: 503 unavailable, and nothing stored",
    async () => {
      const request = await read.prepare();
      const route = routeOf(request.method, BASE + request.path);
      expect(route && routeName(route), "the route the case's request reaches").toBe(read.route);
      const clean = new FaultyD1(env.DB);
      await read.reset?.(request);
      expect((await sendWith(request, clean.binding)).status).toBe(200);
      expect(clean.count).toBeGreaterThan(0);
      for (let k = 1; k <= clean.count; k++) {
        for (const mode of ["before", "after"] as const) {
          await read.reset?.(request);
          const before = await snapshot();
          const faulty = new FaultyD1(env.DB).failCall(k, mode);
          await expectUnavailable(await sendWith(request, faulty.binding));
          expect(faulty.injected, `call ${k} of ${clean.count} was made and failed`).toBe(1);
          expect(normalizedEffects(before, await snapshot()), `effects after call ${k} failed`).toStrictEqual([]);
        }
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe.each(PUBLIC_ROUTES)("$route", ({ request }) => {
  it("answers without a database call, so a failing database does not touch it", async () => {
    const faulty = new FaultyD1(env.DB).failCall(1);
    const response = await sendWith(request, faulty.binding);
    expect(response.status).toBe(200);
    expect(faulty.count).toBe(0);
  });
});
