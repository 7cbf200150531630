import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertCardOrder } from "../src/db/card-orders";
import { RequestDatabase, updateIfUnchanged } from "../src/db/client";
import { touchDraft } from "../src/db/entries";
import { failedGuard } from "../src/db/guards";
import { storeResponse } from "../src/db/idempotency-keys";
import { cardOrders, type CardOrderRow } from "../src/db/schema";
import { insertWebhookEndpoint } from "../src/db/webhook-endpoints";
import { isWriteConflict, WriteConflict } from "../src/errors";
import { BASE, createCardOrder, expectError, newEntry, seedEntries, send, token, unique } from "./support/api";
import { draftOrderRow } from "./support/rows";
import { FaultyD1 } from "./support/faulty-d1";

const database = () => new RequestDatabase(env.DB, "first-primary");

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const orderRow = draftOrderRow;

async function storedOrder(fields: Partial<CardOrderRow> = {}): Promise<CardOrderRow> {
  const row = orderRow(unique("customer"), fields);
  await insertCardOrder(database().orm, row);
  return row;
}

/** An invoice of `kind` for the order, straight into D1 (the raw binding: no classify). */
const insertInvoice = (orderId: string, kind: string, number: string = crypto.randomUUID()) =>
  env.DB.prepare(
    `INSERT INTO invoices (id, customer_id, number, state, created_at, updated_at, booked_on, creditor, due_on,
      order_id, order_state, payment_method, kind) VALUES (?1, 'c', ?2, 'open', '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z', '2026-01-01', 'x', '2026-01-15', ?3, 'submitted', 'bank_transfer', ?4)`,
  )
    .bind(crypto.randomUUID(), number, orderId, kind)
    .run();

/** What D1 itself answers when a write breaks a constraint. */
async function d1Error(write: Promise<unknown>): Promise<string> {
  const error = await failure(write);
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}

describe("a failed guard", () => {
  it("is a WriteConflict that names the guard, and its whole batch is rolled back", async () => {
    const { orm } = database();
    const at = "2027-01-01T00:00:00.000Z";

    const stale = await storedOrder();
    await env.DB.prepare("UPDATE card_orders SET updated_at = ? WHERE id = ?").bind(at, stale.id).run();
    const submitted = await storedOrder();
    const entryId = crypto.randomUUID();
    await env.DB.prepare(
      `INSERT INTO card_order_entries (id, order_id, voucher_owner_id, card_holder_name, amount, created_at, updated_at)
      VALUES (?1, ?2, 'o', 'H', 100, ?3, ?3)`,
    )
      .bind(entryId, submitted.id, at)
      .run();
    await env.DB.prepare("UPDATE card_orders SET state = 'submitted' WHERE id = ?").bind(submitted.id).run();
    const draft = await storedOrder();
    const endpoint = {
      id: crypto.randomUUID(),
      customerId: unique("customer"),
      url: "https://hooks.example/in",
      eventTypes: '["*"]',
      encryptedSecret: "sealed",
      createdAt: at,
    };
    const key = { principal: unique("user"), key: "k", requestHash: "h", status: 201, expiresAt: "2099-01-01" };
    await storeResponse(orm, key, sql`'{}'`);

    const cases = [
      ["unchanged", updateIfUnchanged(orm, cardOrders, stale, { state: "submitted", updatedAt: at })],
      ["order_draft", touchDraft(orm, submitted.id, at, { room: 500 })],
      ["order_draft", touchDraft(orm, submitted.id, at, { entryId })],
      // A missing entry is told first, also when the order is no draft either.
      ["entry_exists", touchDraft(orm, submitted.id, at, { entryId: crypto.randomUUID() })],
      ["entry_exists", touchDraft(orm, draft.id, at, { entryId: crypto.randomUUID() })],
      ["entries_room", touchDraft(orm, draft.id, at, { room: 0 })],
      ["webhook_endpoints_room", insertWebhookEndpoint(orm, endpoint, 0)],
      ["idempotency_key", storeResponse(orm, key, sql`'{}'`)],
    ] as const;
    for (const [guard, statement] of cases) {
      const other = orderRow(unique("customer"));
      const error = await failure(orm.batch([insertCardOrder(orm, other), statement]));
      expect(error, guard).toBeInstanceOf(WriteConflict);
      expect((error as WriteConflict).guard, guard).toBe(guard);
      expect(String(error), guard).toBe(`WriteConflict: ${guard}`);
      // Nothing of the batch is stored.
      const stored = await env.DB.prepare("SELECT id FROM card_orders WHERE id = ?").bind(other.id).first();
      expect(stored, guard).toBeNull();
    }
    // The order whose guards failed is as it was.
    expect(
      await env.DB.prepare("SELECT state, entries_count FROM card_orders WHERE id = ?").bind(draft.id).first(),
    ).toStrictEqual({ state: "draft", entries_count: 0 });
  });

  it("costs nothing when it holds: the write reads the rows it would read unguarded", async () => {
    const db = database();
    const at = "2027-01-01T00:00:00.000Z";
    const [guarded, plain] = [await storedOrder(), await storedOrder()];
    const [result] = await db.orm.batch([touchDraft(db.orm, guarded.id, at, { room: 500 })]);
    expect(result.meta.changes).toBe(1);
    const unguarded = await env.DB.prepare("UPDATE card_orders SET state = state, updated_at = ? WHERE id = ?")
      .bind(at, plain.id)
      .run();
    expect(db.usage).toStrictEqual({
      queries: 1,
      rowsRead: unguarded.meta.rows_read,
      rowsWritten: unguarded.meta.rows_written,
    });
  });

  it("names the UNIQUE indexes a concurrent write breaks, by what D1 answers", async () => {
    const order = await storedOrder({ state: "submitted" });
    await insertInvoice(order.id, "voucher");
    await insertInvoice(order.id, "production");
    const messages = [
      await d1Error(insertInvoice(order.id, "voucher")),
      await d1Error(insertInvoice(order.id, "production")),
    ];
    expect(messages[0]).toMatch(/UNIQUE constraint failed: invoices\.order_id: /);
    expect(messages[1]).toMatch(/UNIQUE constraint failed: invoices\.order_id, invoices\.kind: /);
    expect(messages.map(failedGuard)).toStrictEqual(["order_invoice", "order_invoice"]);
    // A cancelled voucher invoice frees the order for the next one.
    await env.DB.prepare("UPDATE invoices SET state = 'cancelled' WHERE order_id = ?").bind(order.id).run();
    await insertInvoice(order.id, "voucher");
  });
});

describe("any other failure of a constraint", () => {
  it("is no WriteConflict: a bug, not a race", async () => {
    const { orm } = database();
    const order = await storedOrder();
    const errors = [
      await failure(orm.batch([insertCardOrder(orm, order)])),
      // What the guards wrote before they had names: a NULL into a NOT NULL column.
      await failure(orm.batch([orm.update(cardOrders).set({ state: sql`NULL` }).where(sql`id = ${order.id}`)])),
    ];
    expect(errors.map(String)).toStrictEqual([
      expect.stringContaining("UNIQUE constraint failed: card_orders.id"),
      expect.stringContaining("NOT NULL constraint failed: card_orders.state"),
    ]);
    expect(errors.map(isWriteConflict)).toStrictEqual([false, false]);

    const taken = unique("INV");
    await insertInvoice(order.id, "voucher", taken);
    const number = await d1Error(insertInvoice(order.id, "shipping", taken));
    expect(number).toMatch(/UNIQUE constraint failed: invoices\.number: /);
    expect(failedGuard(number)).toBeUndefined();
  });
});

/**
 * The Worker's D1, counted (FaultyD1), where `meanwhile` runs just before the request's write batch,
 * as a concurrent request would, or the write batch fails with `fails` instead.
 */
function racedDb({ meanwhile, fails }: { meanwhile?: () => Promise<unknown>; fails?: string }) {
  const counted = new FaultyD1(env.DB);
  const DB = {
    withSession(start: D1SessionBookmark | D1SessionConstraint) {
      const session = counted.binding.withSession(start);
      return {
        prepare: (query: string) => session.prepare(query),
        async batch(statements: (D1PreparedStatement & { sql: string })[]) {
          if (statements.some((s) => /^\s*(insert|update|delete)\b/i.test(s.sql))) {
            await meanwhile?.();
            if (fails) throw new Error(fails);
          }
          return session.batch(statements);
        },
        getBookmark: () => session.getBookmark(),
      };
    },
  } as unknown as D1Database;
  return { DB, calls: counted.calls };
}

async function request(auth: string, method: string, path: string, DB: D1Database, json?: unknown) {
  const headers: Record<string, string> = { Authorization: `Bearer ${auth}`, "Content-Type": "application/json" };
  const body = json === undefined ? undefined : JSON.stringify(json);
  return send(new Request(BASE + path, { method, headers, body }), { DB });
}

describe("the answer to a failed guard, by its name", () => {
  it("an order filled meanwhile: 409 conflict at once, with no second read", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    await seedEntries(order.id, 499);
    const { DB, calls } = racedDb({ meanwhile: () => seedEntries(order.id, 1) });
    const response = await request(auth, "POST", `/card_orders/${order.id}/entries`, DB, newEntry);
    const body = await expectError(response, 409, { code: "conflict" });
    expect(body.errors[0].detail).toBe("The card order has 500 entries, the most it can hold.");
    expect(calls.map((call) => call.kind)).toStrictEqual(["all", "batch"]);
  });

  it("an order submitted meanwhile: 409 invalid_state after one read that says so", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    const submit = () => env.DB.prepare("UPDATE card_orders SET state = 'submitted' WHERE id = ?").bind(order.id).run();
    const { DB, calls } = racedDb({ meanwhile: submit });
    const response = await request(auth, "POST", `/card_orders/${order.id}/entries`, DB, newEntry);
    const body = await expectError(response, 409, { code: "invalid_state" });
    expect(body.errors[0].detail).toMatch(/^The card order is submitted; /);
    expect(calls.map((call) => call.kind)).toStrictEqual(["all", "batch", "all"]);
  });

  it("an entry deleted meanwhile: 404 at once, as for an entry that never was", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    await seedEntries(order.id, 1);
    const entry = (await env.DB.prepare("SELECT id FROM card_order_entries WHERE order_id = ?")
      .bind(order.id)
      .first<{ id: string }>())!;
    const gone = () => env.DB.prepare("DELETE FROM card_order_entries WHERE id = ?").bind(entry.id).run();
    const { DB, calls } = racedDb({ meanwhile: gone });
    const response = await request(auth, "DELETE", `/card_orders/${order.id}/entries/${entry.id}`, DB);
    await expectError(response, 404, { code: "not_found", detail: "No such entry of this card order." });
    expect(calls.map((call) => call.kind)).toStrictEqual(["batch", "batch"]);
  });

  it("the 11th webhook endpoint: 409 conflict in the one round trip of the write", async () => {
    const auth = await token();
    const json = { url: "https://hooks.example/in", event_types: ["*"] };
    for (let i = 0; i < 10; i++)
      expect((await request(auth, "POST", "/webhook_endpoints", env.DB, json)).status).toBe(201);
    const { DB, calls } = racedDb({});
    const response = await request(auth, "POST", "/webhook_endpoints", DB, json);
    const body = await expectError(response, 409, { code: "conflict" });
    expect(body.errors[0].detail).toMatch(/has 10 webhook endpoints/);
    expect(calls.map((call) => call.kind)).toStrictEqual(["batch"]);
  });

  it("a constraint no guard names answers 500: a bug is never a silent 409", async () => {
    const auth = await token();
    const order = await createCardOrder(auth);
    for (const constraint of [
      "NOT NULL constraint failed: card_orders.state",
      "UNIQUE constraint failed: invoices.number",
    ]) {
      const fails = `D1_ERROR: ${constraint}: SQLITE_CONSTRAINT`;
      const { DB } = racedDb({ fails });
      const response = await request(auth, "POST", `/card_orders/${order.id}/entries`, DB, newEntry);
      await expectError(response, 500, { code: "internal_error" });
    }
  });
});
