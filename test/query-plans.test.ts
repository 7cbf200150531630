import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { addDays } from "../src/domain/time";
import worker from "../src/jobs/index";
import { BASE, newBillingProfile, newCardOrder, send as sendToWorker, token } from "./support/api";
import { requestOf, routeExamples } from "./support/examples";
import { FaultyD1 } from "./support/faulty-d1";
import { outbound, serviceAccount } from "./support/outbound";
import { credit, germanIban, statementFile } from "./support/payments";
import { drain, drainStatements, queued } from "./support/queue";
import { runDunning } from "./support/dunning";
import { deliveriesQueued, drainDeliveries, emailEvent, feedEmailEvents, RecordingEmail } from "./support/deliveries";
import jobs from "../src/jobs/index";
import { PUBLIC_ROUTES, ROUTES, routeName, routeOf } from "./support/routes";

// Every statement the Worker sends to D1 is recorded while every route of the route table runs its
// example (test/support/examples.ts, which fails this file naming a route without one) and the
// scenarios below drive each route through its other branches, and the queue consumer and the Cron
// Triggers do their work; then every recorded statement has its query plan checked. A new statement
// needs no name anywhere: it passes the plan checks or fails them.

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
  /** An XML body (a bank statement), instead of JSON. */
  xml?: string;
  headers?: Record<string, string>;
}

async function send(
  auth: string,
  path: string,
  { method, json, xml, headers = {}, db = recorder }: Options = {},
): Promise<Response> {
  const body = xml ?? (json === undefined ? undefined : JSON.stringify(json));
  const request = new Request(BASE + path, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: {
      Authorization: `Bearer ${auth}`,
      ...(body === undefined ? {} : { "Content-Type": xml === undefined ? "application/json" : "application/xml" }),
      ...headers,
    },
    body,
  });
  return sendRecorded(request, db);
}

/** Sends `request` with its statements recorded as sent by the route it reaches, and its status kept. */
async function sendRecorded(request: Request, db: D1Database = recorder): Promise<Response> {
  const route = routeOf(request.method, request.url);
  const name = route ? routeName(route) : `unrouted ${request.method} ${new URL(request.url).pathname}`;
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
  for (const spec of PUBLIC_ROUTES) expect((await send(auth, spec.path)).status, routeName(spec)).toBe(200);

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
  // docs/api.md part 18: the accounts department's view (payments:read, no customer), every customer's
  // invoices or one's, and the overdue and dunning lists, of a customer's too; its open invoices made
  // overdue and chased, as the dunning run leaves them.
  await env.DB.prepare(
    "UPDATE invoices SET due_on = '2000-01-03', dunning_state = 'active' WHERE customer_id = ? AND state = 'open'",
  )
    .bind("plans-customer")
    .run();
  const accounts = await token({ customer_id: undefined, scope: "payments:read" });
  for (const [caller, query] of [
    [accounts, ""],
    [accounts, "state=open"],
    [accounts, `order_id=${order.id}`],
    [accounts, `state=open&order_id=${order.id}`],
    [accounts, "customer=plans-customer"],
    [accounts, "customer=plans-customer&state=open"],
    [accounts, `customer=plans-customer&order_id=${order.id}`],
    [accounts, "overdue=true"],
    [accounts, "dunning=active"],
    [accounts, "overdue=true&dunning=active"],
    [accounts, "overdue=true&customer=plans-customer"],
    [accounts, "dunning=active&customer=plans-customer"],
    [accounts, "overdue=true&dunning=active&customer=plans-customer"],
    [auth, "overdue=true"],
    [auth, "dunning=active"],
  ] as const) {
    const first = await expectStatus(200, caller, `/invoices?${query}&page_size=1`);
    if (first.links.next) {
      const second = await expectStatus(200, caller, first.links.next.slice(BASE.length));
      await expectStatus(200, caller, second.links.prev.slice(BASE.length));
      await expectStatus(200, caller, `/invoices?${query}&page_size=1&page=2`);
    }
    await expectStatus(200, caller, first.links.last.slice(BASE.length));
  }
  await expectStatus(200, accounts, `/invoices/${invoice.id}`);
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

  // Getting paid (docs/api.md part 15): a statement read and matched by the jobs Worker's consumer, a
  // transaction by each rule (a reference; the payer's IBAN, its customer's and no one else's; nothing),
  // then the same file again, each transaction a duplicate, and a third statement.
  const payer = await token({ customer_id: "plans-payer" });
  const payerIban = germanIban(4242);
  await expectStatus(200, payer, profile, {
    method: "PUT",
    json: { ...newBillingProfile, direct_debit_iban: payerIban },
  });
  const byReference = await createInvoice(payer, (await submittedOrder(payer)).id);
  const byIban = await createInvoice(payer, (await submittedOrder(payer)).id);
  const { payment_reference } = (await expectStatus(200, payer, `/invoices/${byReference.id}/balance`)).data;
  const file = statementFile([
    credit(byReference.gross_amount, { structuredReference: payment_reference }),
    credit(byIban.gross_amount, { debtorName: "Müller & Söhne", debtorIban: payerIban }),
    credit("1.00", { unstructured: ["no reference"] }),
  ]);
  const consume = () => sentBy("the statements consumer", () => drainStatements({ DB: recorder }));
  const [statement] = (await expectStatus(202, payer, "/bank_statements", { xml: file })).data;
  await consume();
  await expectStatus(202, payer, "/bank_statements", { xml: file });
  // One without AcctSvcrRef: known by its content key too (docs/api.md part 15, duplicates).
  const unreferenced = { ...credit("3.00"), accountServicerReference: undefined };
  await expectStatus(202, payer, "/bank_statements", { xml: statementFile([credit("2.00"), unreferenced]) });
  await consume();
  const read = (await expectStatus(200, payer, `/bank_statements/${statement.id}`)).data;
  expect([read.state, read.matched_count, read.unmatched_count]).toStrictEqual(["processed", 2, 1]);

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
    [payer, "/bank_statements"],
    [payer, "/bank_transactions"],
    [payer, "/bank_transactions?state=unmatched"],
    [payer, `/bank_transactions?bank_statement_id=${statement.id}`],
    [payer, "/invoice_deliveries"],
    [payer, "/invoice_deliveries?state=pending"],
  ];
  for (const [caller, list] of lists) {
    const follow = async (link: string) => expectStatus(200, caller, link.slice(BASE.length));
    const first = await expectStatus(200, caller, `${list}${list.includes("?") ? "&" : "?"}page_size=1`);
    const third = await follow((await follow(first.links.next)).links.next);
    await follow(third.links.prev);
    await follow(first.links.last);
  }

  // docs/api.md part 17: an invoice's deliveries, by invoice; the deliveries consumer sends one, Email
  // Service reports it delivered, and the jobs Worker's cron looks for overdue ones.
  await expectStatus(200, auth, `/invoices/${linedInvoice.id}/deliveries?page_size=1`);
  await expectStatus(200, payer, `/invoice_deliveries?invoice_id=${linedInvoice.id}&page_size=1`);
  await expectStatus(200, payer, `/invoice_deliveries?invoice_id=${linedInvoice.id}&state=pending&page_size=1`);
  const { results: mailed } = await env.DB.prepare("SELECT id FROM invoice_deliveries WHERE invoice_id = ?")
    .bind(linedInvoice.id)
    .all<{ id: string }>();
  deliveriesQueued.take();
  deliveriesQueued.messages.push(...mailed.map(({ id }) => ({ deliveryId: id })));
  await sentBy("the deliveries consumer", () => drainDeliveries({ DB: recorder, EMAIL: new RecordingEmail().binding }));
  const { message_id } = (await env.DB.prepare("SELECT message_id FROM invoice_deliveries WHERE invoice_id = ?")
    .bind(linedInvoice.id)
    .first<{ message_id: string }>())!;
  await sentBy("the delivery-events consumer", () =>
    feedEmailEvents([emailEvent("delivered", message_id), emailEvent("delivered", "<unknown@x>")], 3, {
      DB: recorder,
    }),
  );
  await sentBy("the jobs Worker's Cron Trigger", async () => {
    const ctx = createExecutionContext();
    await jobs.scheduled!(
      createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }),
      { ...env, DB: recorder, DELIVERIES: deliveriesQueued.binding },
      ctx,
    );
    await waitOnExecutionContext(ctx);
  });
  deliveriesQueued.take();

  // docs/api.md part 18: the daily dunning run for days past the lined invoice's due date (overdue and
  // level 1, then level 2): the cron, its scans of both phases and their chunks.
  for (const days of [40, 60])
    await sentBy("the dunning run", () => runDunning(addDays(linedInvoice.due_on, days), { DB: recorder }));
  deliveriesQueued.take();

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

const ROUTE_EXAMPLES = routeExamples();

/** Every route's example, the base case of each: it answers its status, its statements recorded. */
async function runEveryExample(): Promise<void> {
  for (const { name, example } of ROUTE_EXAMPLES) {
    const response = await sendRecorded(requestOf(await example.prepare()));
    const body = await response.text();
    expect({ route: name, status: response.status, body }).toMatchObject({ status: example.status });
  }
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
function wholeTableSteps(plan: PlanStep[], sql: string): PlanStep[] {
  // A page of a list of all rows (the back office's statements and transactions, unfiltered) walks
  // the index of its order and stops at the page's end: LIMIT rows read, not the table.
  const pageOfAll = / WHERE 1 = 1 ORDER BY [^()]+ LIMIT .+$/i.test(sql);
  return plan.filter(({ detail }) => {
    if (/^USE TEMP B-TREE/.test(detail)) return true;
    if (!/^SCAN /.test(detail)) return false;
    if (pageOfAll && /^SCAN \w+ USING (COVERING )?INDEX \w+$/.test(detail)) return false;
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

/** A statement as a message names it: its first 80 characters, and what sent it. */
const nameOf = (sql: string) =>
  `${sql.replace(/\s+/g, " ").slice(0, 80)}${sql.length > 80 ? "…" : ""} (sent by ${[...(sources.get(sql) ?? [])].join("; ")})`;

describe("query plans of every statement the Worker issues", () => {
  beforeAll(async () => {
    await exerciseEveryEndpoint();
    await runEveryExample();
  }, 120_000);

  it("every route of the route table succeeded here (by its example at least), every request on a route", () => {
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

  it("no statement reads a whole table", async () => {
    const offenders: string[] = [];
    for (const [sql, params] of shapes) {
      const plan = await planOf(sql, params);
      if (wholeTableSteps(plan, sql).length > 0) offenders.push(`${nameOf(sql)}:\n${showPlan(sql, params, plan)}`);
    }
    expect(offenders.join("\n\n")).toBe("");
  });

  it("no statement of the count triggers reads a whole table", async () => {
    const statements = await triggerStatements();
    // Every trigger's body read (a body the parser missed would go unchecked): the kept totals of
    // docs/api.md part 4, each a statement or more.
    const { results: triggers } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all<{
      name: string;
    }>();
    expect(triggers.length).toBeGreaterThan(0);
    expect(
      triggers.map(({ name }) => name).filter((name) => !statements.some((s) => s.trigger === name)),
    ).toStrictEqual([]);
    const offenders: string[] = [];
    for (const { trigger, sql, params } of statements) {
      const plan = await planOf(sql, params);
      if (wholeTableSteps(plan, sql).length > 0) offenders.push(`${trigger}: ${showPlan(sql, params, plan)}`);
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
      wholeTableSteps(await planOf(sql, params), sql).map((step) => step.detail);
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
    // A page of all rows in an index's order is read up to the page's end; without the LIMIT, or with a
    // condition the index does not serve, the walk passes the whole index.
    const page = "SELECT * FROM bank_statements WHERE 1 = 1 ORDER BY created_at DESC, id DESC LIMIT ?";
    expect(await flagged(page, 26)).toStrictEqual([]);
    expect(await flagged(page.replace(" LIMIT ?", ""))).toStrictEqual([
      expect.stringMatching(/^SCAN bank_statements USING INDEX /),
    ]);
    expect(await flagged(page.replace("1 = 1", "1 = 1 AND error IS NULL"), 26)).toStrictEqual([
      expect.stringMatching(/^SCAN bank_statements USING INDEX /),
    ]);
  });
});
