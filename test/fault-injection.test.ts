import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  BASE,
  call,
  createInvoice,
  expectError,
  newBillingProfile,
  orderIn,
  send,
  token,
  unique,
  withBillingProfile,
} from "./support/api";
import { type Example, type ExampleRequest, exampleOrder, partsOf, routeExamples } from "./support/examples";
import { FaultyD1, type FaultMode } from "./support/faulty-d1";
import { PUBLIC_ROUTES, ROUTES, routeName, routeOf, WRITE_ROUTES } from "./support/routes";

// docs/api.md parts 3 and 7: when the database fails, the client gets 503 `unavailable` with
// Retry-After, nothing is half-written, and a retry stores the request's effects exactly once.
// Every route of the route table (src/app.ts) is covered from its spec: a write (every method but GET)
// all of the above and a read a 503 and nothing stored, each on its example (test/support/examples.ts,
// which fails this file naming a route without one), and a public route no database call at all.

const TEST_TIMEOUT_MS = 120_000;

type Row = Record<string, unknown>;
type Snapshot = Record<string, Map<string, Row>>;

/**
 * Every table a write can touch, with its primary key, as the database has them: its own tables, not
 * SQLite's (sqlite_), D1's or workerd's (_cf_, d1_, which holds the migrations table d1_migrations).
 */
async function readTables(): Promise<Record<string, string[]>> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' " +
      "AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'd1\\_%' ESCAPE '\\' ORDER BY name",
  ).all<{ name: string }>();
  const tables: Record<string, string[]> = {};
  for (const { name } of results) {
    const { results: columns } = await env.DB.prepare(`PRAGMA table_info("${name}")`).all<{
      name: string;
      pk: number;
    }>();
    const key = columns
      .filter(({ pk }) => pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    // A table without a declared primary key is a rowid table: its rows are told apart by rowid.
    tables[name] = key.length > 0 ? key : ["rowid"];
  }
  return tables;
}

let tablesRead: Promise<Record<string, string[]>> | undefined;
const tablesOfTheDatabase = () => (tablesRead ??= readTables());

async function snapshot(): Promise<Snapshot> {
  const tables = await tablesOfTheDatabase();
  const names = Object.keys(tables);
  const results = await env.DB.batch(
    names.map((table) => env.DB.prepare(`SELECT ${tables[table]![0] === "rowid" ? "rowid, *" : "*"} FROM "${table}"`)),
  );
  const snapshot: Snapshot = {};
  names.forEach((table, i) => {
    const rows = results[i]!.results as Row[];
    snapshot[table] = new Map(rows.map((row) => [JSON.stringify(tables[table]!.map((column) => row[column])), row]));
  });
  return snapshot;
}

/** What happened to the database between two snapshots: rows added, removed and changed. */
function effects(before: Snapshot, after: Snapshot): unknown[] {
  const found: unknown[] = [];
  for (const table of Object.keys(after)) {
    const [old, now] = [before[table]!, after[table]!];
    for (const [key, row] of now) {
      const previous = old.get(key);
      // A list's total is a counter: a back-office list is one for all (no customer of a test's own),
      // and whether an earlier run made its row or this one does, the effect is the same move.
      if (!previous && table === "list_counts") {
        found.push({ table, key, changes: { total: { delta: row.total } } });
        continue;
      }
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

// Two runs of one request on like preconditions differ only in generated ids, times, names (a test's
// unique() principals, customers, keys and values), hashes, secrets (a webhook endpoint's; what is
// stored sealed) and the number they took; with those replaced, "all effects" of both runs are the
// same text.
function normalize(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text
    .replace(/\b(user|customer|fcm|key|MSG|STMT|ACSR|MNDT)-[0-9a-z]+-[0-9a-z]+\b/g, "<$1>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/\bDD[0-9A-F]{26}\b/g, "<message-id>")
    .replace(/\b[0-9a-f]{64}\b/g, "<hash>")
    .replace(/\bwhsec_[\w+/=]+/g, "<secret>")
    .replace(/\bv2\.[\w+/=]+\.[\w+/=]+/g, "<sealed>")
    .replace(/\b(INV|CN)-(\d{4})-\d{6}\b/g, "$1-$2-<n>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, "<ts>")
    .replace(/\d{4}-\d{2}-\d{2}/g, "<date>");
}

const normalizedEffects = (before: Snapshot, after: Snapshot): string[] => effects(before, after).map(normalize).sort();

/** A request as sent (test/support/examples.ts `partsOf`): each run builds a Request of its own from it. */
type Prepared = ReturnType<typeof partsOf>;

/** Sends a prepared request to the Worker with `db` as its D1 binding. */
const sendWith = ({ method, path, headers, body }: Prepared, db: D1Database): Promise<Response> =>
  send(new Request(BASE + path, { method, headers, body }), { DB: db });

const registerDevice = async (auth: string, device: string, value = unique("fcm")) =>
  expect(
    (
      await call("/voucher_owners/me/notification_tokens", {
        token: auth,
        method: "PUT",
        json: { value, device_identifier: device },
      })
    ).status,
  ).toBe(204);

/**
 * Other paths through the database of a write whose example takes one of them, each failed apart,
 * by operationId; a variant answers what the route's example answers. A route needs none: its
 * example covers it.
 */
const VARIANTS: Record<string, { variant: string; prepare: () => Promise<ExampleRequest> }[]> = {
  cancelCardOrder: [
    {
      variant: "with an open invoice, which it cancels",
      prepare: async () => {
        const auth = await token();
        const order = await exampleOrder(auth, "submitted");
        await createInvoice(auth, order.id);
        return { auth, method: "POST", path: `/card_orders/${order.id}/cancel` };
      },
    },
  ],
  registerNotificationToken: [
    {
      variant: "replacement",
      prepare: async () => {
        const auth = await token();
        await registerDevice(auth, "phone");
        return {
          auth,
          method: "PUT",
          path: "/voucher_owners/me/notification_tokens",
          json: { value: unique("fcm"), device_identifier: "phone" },
        };
      },
    },
    {
      variant: "value moving from another owner",
      prepare: async () => {
        const value = unique("fcm");
        await registerDevice(await token(), "tablet", value);
        return {
          auth: await token(),
          method: "PUT",
          path: "/voucher_owners/me/notification_tokens",
          json: { value, device_identifier: "phone" },
        };
      },
    },
    {
      variant: "a 21st device, replacing the least recently updated",
      prepare: async () => {
        const auth = await token();
        for (let i = 0; i < 20; i++) await registerDevice(auth, `device-${i}`);
        return {
          auth,
          method: "PUT",
          path: "/voucher_owners/me/notification_tokens",
          json: { value: unique("fcm"), device_identifier: "device-new" },
        };
      },
    },
  ],
  putBillingProfile: [
    {
      variant: "a replacement",
      prepare: async () => {
        const auth = await token();
        await withBillingProfile(auth);
        return {
          auth,
          method: "PUT",
          path: "/customers/me/billing_profile",
          json: { ...newBillingProfile, vat_id: null },
        };
      },
    },
  ],
};

interface WriteCase {
  /** Its route and, for a variant, which of its paths through the database. */
  name: string;
  /** Its route in the route table (test/support/routes.ts). */
  route: string;
  status: Example["status"];
  /** What the request answers when it runs again after it ran (DELETE of an entry: 404, docs/api.md part 10). */
  repeated?: 404;
  /** Fresh preconditions, and the request to run on them. */
  prepare: () => Promise<Prepared>;
}

/** A route that only reads: its request on fresh preconditions. */
interface ReadCase {
  route: string;
  status: Example["status"];
  prepare: () => Promise<ExampleRequest>;
  /** Puts back what a successful run left outside D1 (a document stored in R2), before each run. */
  reset?: (request: ExampleRequest) => Promise<void>;
}

const ROUTE_EXAMPLES = routeExamples();

const WRITES: WriteCase[] = ROUTE_EXAMPLES.filter(({ spec }) => spec.method !== "get").flatMap(
  ({ name, operationId, example: { status, repeated, prepare } }) => [
    { name, route: name, status, repeated, prepare: async () => partsOf(await prepare()) },
    ...(VARIANTS[operationId] ?? []).map((variant) => ({
      name: `${name} (${variant.variant})`,
      route: name,
      status,
      repeated,
      prepare: async () => partsOf(await variant.prepare()),
    })),
  ],
);

const READS: ReadCase[] = ROUTE_EXAMPLES.filter(({ spec }) => spec.method === "get").map(
  ({ name, example: { status, prepare, reset } }) => ({ route: name, status, prepare, reset }),
);

// Public routes use no database (src/http/mount.ts): they are checked to make no call at all.
const PUBLIC_CASES = PUBLIC_ROUTES.map((spec) => ({
  route: routeName(spec),
  request: { method: spec.method.toUpperCase(), path: spec.path, headers: {} },
}));

describe("the cases of this file", () => {
  it("cover every route of the route table, and name no other", () => {
    const covered = new Set([...WRITES, ...READS, ...PUBLIC_CASES].map(({ route }) => route));
    const routes = ROUTES.map(routeName);
    const missing = routes.filter((route) => !covered.has(route));
    expect(missing, `routes without a case here: ${missing.join(", ")}`).toStrictEqual([]);
    expect([...covered].filter((route) => !routes.includes(route))).toStrictEqual([]);
    // A variant is one more way through a write: it names a write route of the table by its operationId.
    const writes = new Set(WRITE_ROUTES.map((spec) => spec.operationId));
    const stray = Object.keys(VARIANTS).filter((operationId) => !writes.has(operationId));
    expect(stray, "variants of no write route of the table").toStrictEqual([]);
  });
});

const KEY_VARIANTS = [
  ["without an Idempotency-Key", false],
  ["with an Idempotency-Key", true],
] as const;

async function prepared(write: WriteCase, withKey: boolean): Promise<Prepared> {
  const request = await write.prepare();
  if (withKey) request.headers["Idempotency-Key"] = unique("key");
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
  const auth = await token();
  const invoice = await createInvoice(auth, (await orderIn(auth, "submitted")).id);
  expect((await call(`/invoices/${invoice.id}/cancel`, { token: auth, method: "POST" })).status).toBe(200);
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
        if (write.repeated !== undefined && k === clean.calls) {
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
      const example = await read.prepare();
      const request = partsOf(example);
      const route = routeOf(request.method, BASE + request.path);
      expect(route && routeName(route), "the route the case's request reaches").toBe(read.route);
      const clean = new FaultyD1(env.DB);
      await read.reset?.(example);
      expect((await sendWith(request, clean.binding)).status).toBe(read.status);
      expect(clean.count).toBeGreaterThan(0);
      for (let k = 1; k <= clean.count; k++) {
        for (const mode of ["before", "after"] as const) {
          await read.reset?.(example);
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

describe.each(PUBLIC_CASES)("$route", ({ request }) => {
  it("answers without a database call, so a failing database does not touch it", async () => {
    const faulty = new FaultyD1(env.DB).failCall(1);
    const response = await sendWith(request, faulty.binding);
    expect(response.status).toBe(200);
    expect(faulty.count).toBe(0);
  });
});
