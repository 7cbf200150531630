import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import worker from "../src/index";
import { BASE, newBillingProfile, newCardOrder, send as sendToWorker, token } from "./support/api";
import { FaultyD1 } from "./support/faulty-d1";
import { outbound, serviceAccount } from "./support/outbound";
import { drain, queued } from "./support/queue";
import { ROUTES, routeName, routeOf } from "./support/routes";

// Every distinct SQL text the Worker sends to D1, with the parameters of its first execution, and
// what sent it: a route of the route table (by name), the queue consumer or a Cron Trigger.
const shapes = new Map<string, unknown[]>();
const sources = new Map<string, Set<string>>();
let source = "";
// The statuses each route answered here, by route name.
const answered = new Map<string, number[]>();

function remember(sql: string, params: unknown[]): void {
  if (!shapes.has(sql)) shapes.set(sql, params);
  sources.set(sql, (sources.get(sql) ?? new Set()).add(source));
}

/** Runs `work` with the statements it sends recorded as sent by `by`. */
async function sentBy<T>(by: string, work: () => Promise<T>): Promise<T> {
  source = by;
  try {
    return await work();
  } finally {
    source = "";
  }
}

/** A prepared statement that remembers its SQL and parameters when it runs, alone or in a batch. */
class RecordingStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    readonly sql: string,
    readonly params: unknown[] = [],
  ) {}

  bind(...values: unknown[]): RecordingStatement {
    return new RecordingStatement(this.inner.bind(...values), this.sql, values);
  }

  private recorded<T>(call: () => Promise<T>): Promise<T> {
    remember(this.sql, this.params);
    return call();
  }

  first<T>(column?: string): Promise<T | null> {
    return this.recorded(() => (column === undefined ? this.inner.first<T>() : this.inner.first<T>(column)));
  }

  all<T>(): Promise<D1Result<T>> {
    return this.recorded(() => this.inner.all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return this.recorded(() => this.inner.run<T>());
  }

  raw<T>(options?: { columnNames?: boolean }): Promise<T[]> {
    return this.recorded(() => this.inner.raw<T>(options as { columnNames?: false }));
  }
}

function recordingBatch<T>(
  batch: (statements: D1PreparedStatement[]) => Promise<D1Result<T>[]>,
  statements: RecordingStatement[],
) {
  for (const statement of statements) remember(statement.sql, statement.params);
  return batch(statements.map((s) => s.inner));
}

function recordingSession(session: D1DatabaseSession): D1DatabaseSession {
  return {
    prepare: (sql: string) => new RecordingStatement(session.prepare(sql), sql),
    batch: <T>(statements: D1PreparedStatement[]) =>
      recordingBatch<T>((s) => session.batch<T>(s), statements as unknown as RecordingStatement[]),
    getBookmark: () => session.getBookmark(),
  } as unknown as D1DatabaseSession;
}

/** env.DB as the Worker sees it, recording every statement on the way through. */
const recorder = {
  prepare: (sql: string) => new RecordingStatement(env.DB.prepare(sql), sql),
  batch: <T>(statements: D1PreparedStatement[]) =>
    recordingBatch<T>((s) => env.DB.batch<T>(s), statements as unknown as RecordingStatement[]),
  exec: (sql: string) => env.DB.exec(sql),
  withSession: (start?: D1SessionBookmark | D1SessionConstraint) => recordingSession(env.DB.withSession(start)),
} as unknown as D1Database;

interface Options {
  db?: D1Database;
  method?: string;
  json?: unknown;
  headers?: Record<string, string>;
}

async function send(
  auth: string,
  path: string,
  { method, json, headers = {}, db = recorder }: Options = {},
): Promise<Response> {
  const request = new Request(BASE + path, {
    method: method ?? (json === undefined ? "GET" : "POST"),
    headers: {
      Authorization: `Bearer ${auth}`,
      ...(json === undefined ? {} : { "Content-Type": "application/json" }),
      ...headers,
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const route = routeOf(request.method, request.url);
  const name = route ? routeName(route) : `unrouted ${request.method} ${path}`;
  const response = await sentBy(name, () => sendToWorker(request, { DB: db }));
  answered.set(name, [...(answered.get(name) ?? []), response.status]);
  return response;
}

/** Sends a request that must answer `status`; the body when there is one. */
async function expectStatus(status: number, auth: string, path: string, options?: Options): Promise<any> {
  const response = await send(auth, path, options);
  const text = await response.text();
  expect({ path, status: response.status, body: text }).toMatchObject({ status });
  return text ? JSON.parse(text) : undefined;
}

const createOrder = async (auth: string, headers?: Record<string, string>) =>
  (await expectStatus(201, auth, "/card_orders", { json: newCardOrder, headers })).data[0];

const addEntry = async (auth: string, orderId: string, headers?: Record<string, string>) =>
  (
    await expectStatus(201, auth, `/card_orders/${orderId}/entries`, {
      json: { voucher_owner_id: "owner-1", card_holder_name: "Ada", amount: "25.00" },
      headers,
    })
  ).data[0];

/** A new order with an entry, submitted. */
const submittedOrder = async (auth: string) => {
  const { id } = await createOrder(auth);
  await addEntry(auth, id);
  return (await expectStatus(200, auth, `/card_orders/${id}/submit`, { method: "POST" })).data;
};

const createInvoice = async (auth: string, orderId: string, headers?: Record<string, string>) =>
  (await expectStatus(201, auth, "/invoices", { json: { order_id: orderId, reference: "R-1" }, headers })).data[0];

/** Drives every endpoint through every branch that reaches the database. */
async function exerciseEveryEndpoint(): Promise<void> {
  const sub = "plans-user";
  const auth = await token({ sub, customer_id: "plans-customer" });
  const other = await token({ customer_id: "plans-other" });

  // The public routes: served without the database.
  for (const path of ["/health", "/openapi.json", "/docs"]) expect((await send(auth, path)).status).toBe(200);

  // The billing profile a submit needs: missing, written, read, written again unchanged (no write).
  const profile = "/customers/me/billing_profile";
  await expectStatus(404, auth, profile);
  await expectStatus(200, auth, profile, { method: "PUT", json: { ...newBillingProfile, vat_id: null } });
  await expectStatus(200, auth, profile, { method: "PUT", json: newBillingProfile });
  await expectStatus(200, auth, profile, { method: "PUT", json: newBillingProfile });
  await expectStatus(200, auth, profile);

  // Card orders: creates with and without a key, a replay, a reused key, and a key whose stored
  // response has expired (the write deletes it in its batch).
  const order = await createOrder(auth);
  const keyed = await createOrder(auth, { "Idempotency-Key": "create-1" });
  await expectStatus(201, auth, "/card_orders", { json: newCardOrder, headers: { "Idempotency-Key": "create-1" } });
  await expectStatus(422, auth, "/card_orders", {
    json: { ...newCardOrder, description: "other" },
    headers: { "Idempotency-Key": "create-1" },
  });
  await env.DB.prepare(
    "INSERT INTO idempotency_keys (principal, key, request_hash, status, body, expires_at) " +
      "VALUES (?, 'stale', 'x', 201, '{}', ?)",
  )
    .bind(sub, new Date(Date.now() - 1000).toISOString())
    .run();
  await createOrder(auth, { "Idempotency-Key": "stale" });

  // Lists: every filter, first and later pages, and a page past the end.
  for (const query of [
    "",
    "?state=draft",
    "?state=cancelled&page=1&page_size=1",
    "?state=draft&page=2&page_size=1",
    "?page=2&page_size=1",
    "?page=99",
  ]) {
    await expectStatus(200, auth, `/card_orders${query}`);
  }
  await expectStatus(200, auth, `/card_orders/${order.id}`);
  await expectStatus(404, other, `/card_orders/${order.id}`);

  // Entries: added with and without a key, a replay, listed, deleted, and refused once submitted.
  const entry = await addEntry(auth, order.id);
  await addEntry(auth, order.id, { "Idempotency-Key": "entry-1" });
  await addEntry(auth, order.id, { "Idempotency-Key": "entry-1" });
  await expectStatus(200, auth, `/card_orders/${order.id}/entries?page=1&page_size=1`);
  await expectStatus(200, auth, `/card_orders/${order.id}/entries?page=2&page_size=1`);
  await expectStatus(404, other, `/card_orders/${order.id}/entries`);
  await expectStatus(204, auth, `/card_orders/${order.id}/entries/${entry.id}`, { method: "DELETE" });
  await expectStatus(404, auth, `/card_orders/${order.id}/entries/${entry.id}`, { method: "DELETE" });

  // Every transition, with and without a key, and one refused from the wrong state.
  await expectStatus(200, auth, `/card_orders/${order.id}/submit`, { method: "POST" });
  await expectStatus(409, auth, `/card_orders/${order.id}/entries`, {
    json: { voucher_owner_id: "o", card_holder_name: "A", amount: "1.00" },
  });
  await expectStatus(200, auth, `/card_orders/${order.id}/start_production`, {
    method: "POST",
    headers: { "Idempotency-Key": "start-1" },
  });
  await expectStatus(200, auth, `/card_orders/${order.id}/start_production`, {
    method: "POST",
    headers: { "Idempotency-Key": "start-1" },
  });
  await expectStatus(200, auth, `/card_orders/${order.id}/deliver`, { method: "POST" });
  await expectStatus(409, auth, `/card_orders/${order.id}/cancel`, { method: "POST" });
  await expectStatus(200, auth, `/card_orders/${keyed.id}/cancel`, { method: "POST" });
  // A transition whose batch ran but whose answer was lost: its events are looked up and queued.
  await expectStatus(503, auth, `/card_orders/${(await submittedOrder(auth)).id}/cancel`, {
    method: "POST",
    db: new FaultyD1(recorder).failCall(2, "after").binding,
  });

  // Invoices: created with and without a key (the number is filled in by the batch either way),
  // a replay, a second invoice for one order, a cancelled order, then pay and cancel.
  const invoice = await createInvoice(auth, order.id);
  await expectStatus(409, auth, "/invoices", { json: { order_id: order.id } });
  await expectStatus(409, auth, "/invoices", { json: { order_id: keyed.id } });
  await expectStatus(422, other, "/invoices", { json: { order_id: order.id } });
  const second = await createInvoice(auth, (await submittedOrder(auth)).id, { "Idempotency-Key": "invoice-1" });
  await expectStatus(201, auth, "/invoices", {
    json: { order_id: second.orders[0].id, reference: "R-1" },
    headers: { "Idempotency-Key": "invoice-1" },
  });
  const third = await createInvoice(auth, (await submittedOrder(auth)).id);
  const fourth = await createInvoice(auth, (await submittedOrder(auth)).id);
  // An invoiced order's transition moves the state shown on its invoices in the same batch; its
  // cancel cancels its open invoice; after that, it can be invoiced again.
  const withdrawn = await createInvoice(auth, (await submittedOrder(auth)).id);
  await expectStatus(200, auth, `/card_orders/${withdrawn.orders[0].id}/cancel`, { method: "POST" });
  await expectStatus(200, auth, `/card_orders/${fourth.orders[0].id}/start_production`, { method: "POST" });

  for (const query of [
    "",
    "?state=open",
    `?order_id=${order.id}`,
    `?state=open&order_id=${order.id}`,
    `?order_id=${order.id}&page=2&page_size=1`,
    `?state=open&order_id=${order.id}&page=2`,
    "?page=2&page_size=1",
    "?state=paid&page=3",
  ]) {
    await expectStatus(200, auth, `/invoices${query}`);
  }
  await expectStatus(200, auth, `/invoices/${invoice.id}`);
  await expectStatus(404, other, `/invoices/${invoice.id}`);
  // Its lines, and its documents: rendered and stored on the first request, served from R2 after.
  await expectStatus(200, auth, `/invoices/${invoice.id}/lines`);
  await expectStatus(404, other, `/invoices/${invoice.id}/lines`);
  for (const format of ["ubl", "cii", "ubl"]) {
    const response = await send(auth, `/invoices/${invoice.id}/document?format=${format}`);
    expect(response.status).toBe(200);
    await response.text();
  }
  await expectStatus(200, auth, `/invoices/${invoice.id}/pay`, { method: "POST" });
  await expectStatus(409, auth, `/invoices/${invoice.id}/cancel`, { method: "POST" });
  await expectStatus(200, auth, `/invoices/${second.id}/cancel`, { method: "POST" });
  const creditNote = await send(auth, `/invoices/${second.id}/credit_note`);
  expect(creditNote.status).toBe(200);
  await creditNote.text();
  await expectStatus(200, auth, `/invoices/${third.id}/cancel`, {
    method: "POST",
    headers: { "Idempotency-Key": "cancel-1" },
  });
  await expectStatus(200, auth, `/invoices/${third.id}/cancel`, {
    method: "POST",
    headers: { "Idempotency-Key": "cancel-1" },
  });
  await expectStatus(200, auth, `/invoices/${fourth.id}/pay`, {
    method: "POST",
    headers: { "Idempotency-Key": "pay-1" },
  });

  // Notification tokens: first registration, a repeat, the value moving to another owner, list, delete.
  const owner = await token();
  const path = "/voucher_owners/me/notification_tokens";
  await expectStatus(204, auth, path, { method: "PUT", json: { value: "push-1", device_identifier: "phone" } });
  await expectStatus(204, auth, path, { method: "PUT", json: { value: "push-2", device_identifier: "phone" } });
  await expectStatus(204, owner, path, { method: "PUT", json: { value: "push-2", device_identifier: "tablet" } });
  await expectStatus(200, auth, path);
  await expectStatus(200, owner, `${path}?page=2&page_size=1`);
  await expectStatus(204, owner, `${path}/tablet`, { method: "DELETE" });
  await expectStatus(204, owner, `${path}/tablet`, { method: "DELETE" });

  // Events and webhook endpoints: subscribe, list, delete; the event log with and without a type.
  const hook = (
    await expectStatus(201, auth, "/webhook_endpoints", {
      json: { url: "https://hooks.example/all", event_types: ["*"] },
    })
  ).data[0];
  await expectStatus(201, auth, "/webhook_endpoints", {
    json: { url: "https://hooks.example/paid", event_types: ["invoice.paid"] },
  });
  await expectStatus(200, auth, "/webhook_endpoints?page=2&page_size=1");
  await expectStatus(200, auth, "/events");
  await expectStatus(200, auth, "/events?page=2&page_size=1");
  await expectStatus(200, auth, "/events?type=invoice.paid&page=2&page_size=1");

  // The consumer: it fans the queued events out into deliveries and, for the delivered order, a
  // push to the device of its voucher owner, whose token FCM no longer knows (so it is deleted).
  await expectStatus(204, await token({ sub: "owner-1" }), path, {
    method: "PUT",
    json: { value: "push-owner-1", device_identifier: "phone" },
  });
  const account = await serviceAccount();
  const world = outbound((request) =>
    request.url === "https://oauth2.test/token"
      ? Response.json({ access_token: "t", expires_in: 3600 })
      : request.url.startsWith("https://fcm.test")
        ? Response.json({ error: { code: 404, details: [{ errorCode: "UNREGISTERED" }] } }, { status: 404 })
        : new Response("ok"),
  );
  const outcomes = await sentBy("the queue consumer", () =>
    drain({
      DB: recorder,
      FCM_PROJECT_ID: "p",
      FCM_SERVICE_ACCOUNT: account.json,
      GOOGLE_TOKEN_URL: "https://oauth2.test/token",
      FCM_API_URL: "https://fcm.test",
    }),
  );
  world.restore();
  expect(new Set(outcomes.map((outcome) => outcome.body.kind))).toStrictEqual(new Set(["event", "delivery", "push"]));
  await expectStatus(204, auth, `/webhook_endpoints/${hook.id}`, { method: "DELETE" });

  // Every list by its links, with three rows at least: page 1, next, next again, that page's prev
  // (each by cursor), and last.
  const flow = await submittedOrder(auth);
  await createInvoice(auth, flow.id);
  await expectStatus(200, auth, `/card_orders/${flow.id}/start_production`, { method: "POST" });
  await expectStatus(200, auth, `/card_orders/${flow.id}/deliver`, { method: "POST" });
  const draft = await createOrder(auth);
  for (let i = 0; i < 3; i++) await addEntry(auth, draft.id);
  const lined = await createOrder(auth);
  for (let i = 0; i < 3; i++) await addEntry(auth, lined.id);
  await expectStatus(200, auth, `/card_orders/${lined.id}/submit`, { method: "POST" });
  const linedInvoice = await createInvoice(auth, lined.id);
  await expectStatus(200, auth, `/invoices/${linedInvoice.id}/lines?page=2&page_size=1`);
  await createOrder(auth);
  const devices = await token();
  for (const device of ["a", "b", "c"])
    await expectStatus(204, devices, path, {
      method: "PUT",
      json: { value: `push-${device}-${sub}`, device_identifier: device },
    });
  await expectStatus(201, auth, "/webhook_endpoints", {
    json: { url: "https://hooks.example/third", event_types: ["*"] },
  });
  await expectStatus(201, auth, "/webhook_endpoints", {
    json: { url: "https://hooks.example/fourth", event_types: ["*"] },
  });
  const lists: [string, string][] = [
    [auth, "/card_orders"],
    [auth, "/card_orders?state=draft"],
    [auth, "/invoices"],
    [auth, "/invoices?state=open"],
    [auth, `/invoices?order_id=${flow.id}`],
    [auth, `/invoices?state=open&order_id=${flow.id}`],
    [auth, `/card_orders/${draft.id}/entries`],
    [auth, `/invoices/${linedInvoice.id}/lines`],
    [auth, "/events"],
    [auth, "/events?type=card_order.submitted"],
    [devices, path],
    [auth, "/webhook_endpoints"],
  ];
  for (const [caller, list] of lists) {
    const follow = async (link: string) => expectStatus(200, caller, link.slice(BASE.length));
    const first = await expectStatus(200, caller, `${list}${list.includes("?") ? "&" : "?"}page_size=1`);
    const third = await follow((await follow(first.links.next)).links.next);
    await follow(third.links.prev);
    await follow(first.links.last);
  }

  // The Cron Trigger: every minute, an event the queue never got; every hour, the sweeps.
  queued.take();
  await env.DB.prepare(
    "UPDATE events SET dispatched_at = NULL, created_at = ? WHERE rowid = (SELECT max(rowid) FROM events)",
  )
    .bind(new Date(Date.now() - 120_000).toISOString())
    .run();
  await env.DB.prepare(
    "INSERT INTO idempotency_keys (principal, key, request_hash, status, body, expires_at) " +
      "VALUES (?, 'old', 'x', 201, '{}', ?)",
  )
    .bind(sub, new Date(Date.now() - 1000).toISOString())
    .run();
  for (const cron of ["* * * * *", "17 * * * *"]) {
    const ctx = createExecutionContext();
    await sentBy(`the Cron Trigger ${cron}`, async () => {
      await worker.scheduled(
        createScheduledController({ scheduledTime: Date.now(), cron }),
        { ...env, DB: recorder, EVENTS: queued.binding },
        ctx,
      );
      await waitOnExecutionContext(ctx);
    });
  }
  expect(queued.take().map((message) => message.kind)).toStrictEqual(["event"]);
}

interface PlanStep {
  id: number;
  parent: number;
  detail: string;
}

async function planOf(sql: string, params: unknown[]): Promise<PlanStep[]> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<PlanStep>();
  return results;
}

// Steps that visit every row of a table, each of which D1 bills as read: a SCAN of the table, and
// also a SCAN ... USING (COVERING) INDEX, which walks the whole index for want of a constraint
// (stricter than "not USING INDEX": every query here can SEARCH). A temporary B-tree for ORDER BY or
// GROUP BY means every matching row was read to sort them before LIMIT could stop early.
// Allowed: SEARCH (a lookup or a range of an index), the constant row of `FROM (SELECT 1)`, and the
// scan of a subquery's own result.
function wholeTableSteps(plan: PlanStep[]): PlanStep[] {
  return plan.filter(({ detail }) => {
    if (/^USE TEMP B-TREE/.test(detail)) return true;
    if (!/^SCAN /.test(detail)) return false;
    return (
      detail !== "SCAN CONSTANT ROW" &&
      !/^SCAN \(subquery-\d+\)$/.test(detail) &&
      !/^SCAN \d+-ROW VALUES CLAUSE$/.test(detail)
    );
  });
}

const showPlan = (sql: string, params: unknown[], plan: PlanStep[]) =>
  [sql, `  params: ${JSON.stringify(params).slice(0, 300)}`, ...plan.map((step) => `  ${step.detail}`)].join("\n");

/** The statements of each trigger body, with NEW./OLD. columns as parameters. */
async function triggerStatements(): Promise<{ trigger: string; sql: string; params: unknown[] }[]> {
  const { results } = await env.DB.prepare(
    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name",
  ).all<{ name: string; sql: string }>();
  return results.flatMap(({ name, sql }) => {
    const body = /\bBEGIN\b([\s\S]*)\bEND\s*$/.exec(sql)?.[1] ?? "";
    return body
      .split(";")
      .map((statement) => statement.trim())
      .filter(Boolean)
      .map((statement) => {
        const params: unknown[] = [];
        const text = statement.replace(/\b(?:NEW|OLD)\.`?\w+`?/g, () => {
          params.push("x");
          return "?";
        });
        return { trigger: name, sql: text, params };
      });
  });
}

/**
 * Every list's statements (src/db/keyset.ts), per filter: a page by number, from a key,
 * before a key, the last page, and the kept total.
 */
function listStatements(): Record<string, RegExp> {
  const lists: [name: string, from: string, where: string][] = [
    ["card orders", '"card_orders"', '"card_orders"\\."customer_id" = \\?'],
    [
      "card orders by state",
      '"card_orders"',
      '\\("card_orders"\\."customer_id" = \\? and "card_orders"\\."state" = \\?\\)',
    ],
    ["invoices", '"invoices"', '"invoices"\\."customer_id" = \\?'],
    ["invoices by state", '"invoices"', '\\("invoices"\\."customer_id" = \\? and "invoices"\\."state" = \\?\\)'],
    ["invoices by order", '"invoices"', '\\(\\+"invoices"\\."customer_id" = \\? and "invoices"\\."order_id" = \\?\\)'],
    [
      "invoices by state and order",
      '"invoices"',
      '\\(\\+"invoices"\\."customer_id" = \\? and \\+"invoices"\\."state" = \\? and "invoices"\\."order_id" = \\?\\)',
    ],
    ["events", '"events"', '"events"\\."customer_id" = \\?'],
    ["events by type", '"events"', '\\("events"\\."customer_id" = \\? and "events"\\."type" = \\?\\)'],
    ["devices", '"notification_tokens"', '"notification_tokens"\\."owner_id" = \\?'],
    ["webhook endpoints", '"webhook_endpoints"', '"webhook_endpoints"\\."customer_id" = \\?'],
  ];
  const statements: Record<string, RegExp> = {};
  for (const [name, from, where] of lists) {
    const select = `^SELECT .* FROM ${from} WHERE ${where}`;
    statements[`${name}: page by number`] = new RegExp(`${select} ORDER BY .* DESC LIMIT CASE WHEN \\? < `);
    statements[`${name}: page 1`] = new RegExp(`${select} ORDER BY .* DESC LIMIT \\?$`);
    statements[`${name}: page from a key`] = new RegExp(
      `${select} AND \\(.*\\) <= \\(\\?, \\?\\) ORDER BY .* DESC LIMIT \\?$`,
    );
    statements[`${name}: page before a key`] = new RegExp(
      `${select} AND \\(.*\\) > \\(\\?, \\?\\) ORDER BY .* ASC LIMIT \\?$`,
    );
    statements[`${name}: last page`] = new RegExp(`${select} ORDER BY .* ASC LIMIT \\(\\(`);
  }
  statements["entries: page by number"] =
    /^SELECT .* FROM "card_orders" INNER JOIN "card_order_entries" ON .* ORDER BY .* DESC LIMIT CASE WHEN/;
  statements["entries: page 1"] =
    /^SELECT .* FROM "card_orders" INNER JOIN "card_order_entries" ON .* ORDER BY .* DESC LIMIT \?$/;
  for (const [mode, pattern] of [
    ["from a key", "<= \\(\\?, \\?\\) ORDER BY"],
    ["before a key", "> \\(\\?, \\?\\) ORDER BY"],
    ["last", "ORDER BY .* ASC LIMIT \\(\\("],
  ]) {
    statements[`entries: page ${mode}`] = new RegExp(
      `^SELECT .* FROM "card_order_entries" WHERE "card_order_entries"\\."order_id" = \\? .*${pattern}`,
    );
  }
  statements["lines: page by number"] =
    /^SELECT .* FROM "invoices" INNER JOIN "invoice_lines" ON .* ORDER BY .* ASC LIMIT CASE WHEN/;
  statements["lines: page 1"] = /^SELECT .* FROM "invoices" INNER JOIN "invoice_lines" ON .* ORDER BY .* ASC LIMIT \?$/;
  for (const [mode, pattern] of [
    ["from a key", ">= \\(\\?, \\?\\) ORDER BY"],
    ["before a key", "< \\(\\?, \\?\\) ORDER BY"],
    ["last", "ORDER BY .* DESC LIMIT \\(\\("],
  ]) {
    statements[`lines: page ${mode}`] = new RegExp(
      `^SELECT .* FROM "invoice_lines" WHERE "invoice_lines"\\."invoice_id" = \\? .*${pattern}`,
    );
  }
  statements["an invoice's lines' total"] = /^SELECT \(SELECT "invoices"\."lines_count" FROM "invoices"/;
  statements["kept totals"] = /^SELECT coalesce\(\(SELECT "list_counts"\."total" FROM "list_counts" WHERE/;
  statements["an order's invoices' total"] = /^SELECT CASE WHEN EXISTS \(SELECT 1 FROM "card_orders"/;
  statements["an order's entries' total"] = /^SELECT \(SELECT "card_orders"\."entries_count" FROM "card_orders"/;
  return statements;
}

/**
 * The statement registry: every statement the Worker sends to D1, by name. Both ways are checked
 * below: each statement recorded must be named here (a new statement fails the test until it is,
 * and then has its plan checked), and each name must match a recorded statement (a branch the
 * scenarios above no longer reach fails too).
 */
const STATEMENTS: Record<string, RegExp> = {
  ...listStatements(),
  "card order insert": /^insert into "card_orders"/,
  "billing profile by customer": /^select .* from "billing_profiles" where "billing_profiles"\."customer_id" = \?$/,
  "billing profile upsert": /^insert into "billing_profiles" .* on conflict/,
  "voucher lines from entries": /^insert into "invoice_lines" .* select .* row_number\(\) OVER/,
  "fee line insert": /^insert into "invoice_lines" .* values \(/,
  "lines of an invoice": /^select .* from "invoice_lines" where "invoice_lines"\."invoice_id" = \? order by/,
  "card order by id":
    /^select .* from "card_orders" where \("card_orders"\."id" = \? and "card_orders"\."customer_id" = \?\)$/,
  "card order transition": /^update "card_orders" set "state" = \?/,
  "card order invoice link": /^update "card_orders" set "updated_at" = CASE .* "invoice_number" = \(SELECT printf/,
  "invoice insert": /^insert into "invoices"/,
  "invoice follows its order's state": /^update "invoices" set "order_state" = \? where "invoices"\."order_id" = \?$/,
  "invoice by id": /^select .* from "invoices" where \("invoices"\."id" = \?/,
  "invoice payment": /^update "invoices" set "state" = \?, "updated_at" = CASE .* "paid_at" = \?/,
  "invoice cancellation": /^update "invoices" set .* "cancellation_number" = \(SELECT printf/,
  "number taken": /^insert into "number_sequences" .* on conflict .* do update/,
  "number read back": /^select json_set\(\?, \?, \(SELECT printf/,
  "idempotent lookup": /^select "request_hash", "status", "body", "expires_at" from "idempotency_keys"/,
  "idempotent store": /^insert into "idempotency_keys" .* values \(\?, \?, \?, \?, \?, \?\) returning "body"$/,
  "idempotent store with a number": /^insert into "idempotency_keys" .* json_set\(/,
  "expired key freed": /^delete from "idempotency_keys" where .*\."expires_at" <= \?\)$/,
  "expired keys swept": /^DELETE FROM "idempotency_keys" WHERE rowid IN \(SELECT rowid FROM "idempotency_keys"/,
  "token value taken away": /^delete from "notification_tokens" where \("notification_tokens"\."value" = \?/,
  "token upsert": /^insert into "notification_tokens" .* on conflict/,
  "token delete": /^delete from "notification_tokens" where \("notification_tokens"\."owner_id" = \?/,
  "least recently updated device makes room":
    /^delete from "notification_tokens" where \(rowid = \(\(select rowid from .* order by .*"updated_at" asc/,
  "order and its voucher invoice":
    /^select .* from "invoices" where "invoices"\."id" in \(select "invoice_id" from "card_orders"/,
  "entry insert": /^insert into "card_order_entries"/,
  "entry delete": /^delete from "card_order_entries"/,
  "entry of an order": new RegExp(
    '^select .* from "card_order_entries" ' +
      'where \\("card_order_entries"\\."id" = \\? and "card_order_entries"\\."order_id" = \\?\\)$',
  ),
  "draft guard of an entry": new RegExp(
    '^update "card_orders" set "state" = CASE WHEN ' +
      '(exists \\(select 1 from "card_order_entries" .*\\) THEN CASE WHEN )?"card_orders"\\."state" = \'draft\'',
  ),
  "event insert": /^insert into "events" .* returning/,
  "events dispatched": /^update "events" set "dispatched_at" = \?/,
  "events of a lost answer":
    /^select .* from "events" where \("events"\."id" in \(\?\) and "events"\."dispatched_at" is null\)$/,
  "events undispatched":
    /^select .* from "events" where \("events"\."dispatched_at" is null and "events"\."created_at" < \?\)/,
  "events swept": /^DELETE FROM "events" WHERE rowid IN \(SELECT rowid FROM "events"/,
  "endpoint insert": /^insert into "webhook_endpoints" .* values \(CASE WHEN coalesce\(\(SELECT "list_counts"/,
  "endpoint by id": /^select .* from "webhook_endpoints" where \("webhook_endpoints"\."id" = \? and/,
  "endpoint delete": /^delete from "webhook_endpoints"/,
  "endpoints of customers":
    /^select "id", "customer_id", "event_types" from "webhook_endpoints" where "webhook_endpoints"\."customer_id" in/,
  "endpoint of a delivery":
    /^select "url", "encrypted_secret" from "webhook_endpoints" where "webhook_endpoints"\."id" = \?/,
  "entries of a delivered order": new RegExp(
    '^select "id", "voucher_owner_id", "card_holder_name" from "card_order_entries" ' +
      'where "card_order_entries"\\."order_id" = \\?$',
  ),
  "devices of its owners":
    /^select "owner_id", "value" from "notification_tokens" where "notification_tokens"\."owner_id" in \(select/,
  "unregistered token deleted": /^delete from "notification_tokens" where "notification_tokens"\."value" = \?$/,
};

describe("query plans of every statement the Worker issues", () => {
  beforeAll(async () => {
    await exerciseEveryEndpoint();
  }, 120_000);

  it("every route of the route table has a scenario here that succeeds", () => {
    const missing = ROUTES.map(routeName).filter((name) => !answered.get(name)?.some((status) => status < 300));
    expect(missing, `routes without a successful request here: ${missing.join(", ")}`).toStrictEqual([]);
    const unrouted = [...answered.keys()].filter((name) => name.startsWith("unrouted"));
    expect(unrouted, "requests that reached no route of the table").toStrictEqual([]);
  });

  // src/http/mount.ts: authenticated routes use the database, public ones do not.
  it("every authenticated route sent statements (their plans are checked below), no public route any", () => {
    const sent = new Set([...sources.values()].flatMap((by) => [...by]));
    const wrong = ROUTES.filter((spec) => sent.has(routeName(spec)) !== (spec.access !== undefined)).map(routeName);
    expect(
      wrong,
      `routes whose statements (or their absence) do not fit their access: ${wrong.join(", ")}`,
    ).toStrictEqual([]);
  });

  it("every statement sent is named in the registry, by one name", () => {
    const misnamed = [...shapes.keys()].flatMap((sql) => {
      const names = Object.keys(STATEMENTS).filter((name) => STATEMENTS[name]!.test(sql));
      if (names.length === 1) return [];
      return [`${sql}\n  sent by: ${[...sources.get(sql)!].join("; ")}\n  named: ${names.join("; ") || "by none"}`];
    });
    expect(misnamed, `statements not named once in STATEMENTS:\n${misnamed.join("\n")}`).toStrictEqual([]);
  });

  it("every statement of the registry was sent, so that the plan check below is not vacuous", () => {
    const texts = [...shapes.keys()];
    const missing = Object.entries(STATEMENTS)
      .filter(([, pattern]) => !texts.some((text) => pattern.test(text)))
      .map(([name]) => name);
    expect(missing, `not recorded (${missing.join(", ")}); recorded were:\n${texts.join("\n")}`).toStrictEqual([]);
    expect(shapes.size).toBeGreaterThanOrEqual(Object.keys(STATEMENTS).length);
  });

  it("no statement reads a whole table", async () => {
    const offenders: string[] = [];
    for (const [sql, params] of shapes) {
      const plan = await planOf(sql, params);
      if (wholeTableSteps(plan).length > 0) offenders.push(showPlan(sql, params, plan));
    }
    expect(offenders.join("\n\n")).toBe("");
  });

  it("no statement of the count triggers reads a whole table", async () => {
    const statements = await triggerStatements();
    // Kept totals: card orders and invoices on insert (one), state change (two) and delete (two and
    // four); events on insert and delete (two); devices and webhook endpoints on insert and delete.
    // An order's entries: insert and delete.
    expect(statements).toHaveLength(22);
    const offenders: string[] = [];
    for (const { trigger, sql, params } of statements) {
      const plan = await planOf(sql, params);
      if (wholeTableSteps(plan).length > 0) offenders.push(`${trigger}: ${showPlan(sql, params, plan)}`);
    }
    expect(offenders.join("\n\n")).toBe("");
  });

  // An index costs a row written on every insert, delete and change of its columns: each must
  // earn that. A unique index enforces a rule (one number per invoice, one live voucher invoice
  // per order, one owner per token) whether or not a query reads through it.
  it("every index is used by a statement's plan, or is unique and enforces a rule", async () => {
    const { results: indexes } = await env.DB.prepare(
      "SELECT name, sql FROM sqlite_master " +
        "WHERE type = 'index' AND sql IS NOT NULL AND tbl_name NOT IN ('_cf_KV', 'd1_migrations')",
    ).all<{ name: string; sql: string }>();
    const used = new Set<string>();
    const statements = [...[...shapes].map(([sql, params]) => ({ sql, params })), ...(await triggerStatements())];
    for (const { sql, params } of statements) {
      for (const { detail } of await planOf(sql, params)) {
        const name = / USING (?:COVERING )?INDEX (\w+)/.exec(detail)?.[1];
        if (name) used.add(name);
      }
    }
    const idle = indexes
      .filter(({ name, sql }) => !used.has(name) && !/^CREATE UNIQUE INDEX/i.test(sql))
      .map(({ name }) => name);
    expect(idle).toStrictEqual([]);
    expect(used.size).toBeGreaterThan(0);
  });

  it("the check itself catches a table scan, a walk of a whole index and a sort", async () => {
    const flagged = async (sql: string, ...params: unknown[]) =>
      wholeTableSteps(await planOf(sql, params)).map((step) => step.detail);
    expect(await flagged("SELECT * FROM card_orders WHERE state = ?", "draft")).toStrictEqual(["SCAN card_orders"]);
    expect(await flagged("SELECT id FROM card_orders WHERE created_at > ?", "2026")).toStrictEqual([
      expect.stringMatching(/^SCAN card_orders USING COVERING INDEX /),
    ]);
    expect(
      await flagged("SELECT * FROM card_orders WHERE customer_id = ? ORDER BY description LIMIT 25", "c"),
    ).toStrictEqual([expect.stringMatching(/^USE TEMP B-TREE FOR ORDER BY/)]);
    expect(
      await flagged("SELECT * FROM card_orders WHERE customer_id = ? ORDER BY created_at DESC, id DESC LIMIT 25", "c"),
    ).toStrictEqual([]);
  });
});
