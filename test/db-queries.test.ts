import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { findCardOrder, insertCardOrder, listCardOrders } from "../src/db/card-orders";
import { RequestDatabase, updateIfUnchanged, type Database } from "../src/db/client";
import { compile, preparer } from "../src/db/compiled";
import { isWriteConflict } from "../src/errors";
import {
  deleteExpiredIdempotencyKeys,
  deleteExpiredKey,
  storedResponse,
  storeResponse,
} from "../src/db/idempotency-keys";
import {
  findInvoice,
  insertInvoice,
  listInvoices,
  numberOf,
  setInvoiceOrderState,
  takeNumber,
} from "../src/db/invoices";
import {
  deleteNotificationToken,
  listNotificationTokens,
  registerNotificationToken,
} from "../src/db/notification-tokens";
import { cardOrders, invoices, type CardOrderRow, type InvoiceRow } from "../src/db/schema";
import { unique } from "./support/api";
import { draftOrderRow } from "./support/rows";

const database = () => new RequestDatabase(env.DB, "first-primary");
const page = (n: number, size: number) => ({ list: "", page: n, pageSize: size, offset: (n - 1) * size });

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

const orderRow = (customerId: string, fields: Partial<CardOrderRow> = {}): CardOrderRow =>
  draftOrderRow(customerId, {
    createdAt: at(0),
    updatedAt: at(0),
    costCenter: "CC-1",
    voucherCategory: "mixed",
    ...fields,
  });

async function insertOrders(orm: Database, rows: CardOrderRow[]): Promise<CardOrderRow[]> {
  for (const row of rows) await insertCardOrder(orm, row).run();
  return rows;
}

/** The kept totals of a list (list_counts): "all" is the unfiltered one, the others by filter. */
async function countsOf(list: "card_orders" | "invoices", scope: string): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare(
    "SELECT filter, total FROM list_counts WHERE list = ? AND scope = ? ORDER BY filter",
  )
    .bind(list, scope)
    .all<{ filter: string; total: number }>();
  return Object.fromEntries(results.map(({ filter, total }) => [filter || "all", total]));
}

async function sequenceLast(series: string, year: number): Promise<number | null> {
  return env.DB.prepare("SELECT last FROM number_sequences WHERE series = ? AND year = ?")
    .bind(series, year)
    .first<number>("last");
}

/** Takes the next number in a batch and reads it back, as the handlers do. */
async function nextNumber(orm: Database, series: string, year: number): Promise<string> {
  const [, rows] = await orm.batch([
    takeNumber(orm, series, year),
    orm.select({ number: numberOf(series, year) }).from(sql`(SELECT 1)`),
  ]);
  return (rows as { number: string }[])[0]!.number;
}

/** Invoices an order the way POST /invoices does: number, invoice and link in one batch. */
async function invoiceOrder(
  orm: Database,
  order: CardOrderRow,
  fields: { state?: InvoiceRow["state"]; createdAt?: string; year?: number } = {},
) {
  const year = fields.year ?? 2040;
  const id = crypto.randomUUID();
  const createdAt = fields.createdAt ?? order.createdAt;
  const number = numberOf("INV", year);
  await orm.batch([
    takeNumber(orm, "INV", year),
    insertInvoice(orm, {
      id,
      customerId: order.customerId,
      number,
      state: fields.state ?? "open",
      createdAt,
      updatedAt: createdAt,
      bookedOn: createdAt.slice(0, 10),
      creditor: "Voucher Cards GmbH",
      dueOn: createdAt.slice(0, 10),
      paidAt: null,
      cancellationNumber: null,
      cancelledAt: null,
      cancelledOn: null,
      orderId: order.id,
      orderState: order.state,
      reference: null,
      costCenter: order.costCenter,
      paymentMethod: order.paymentMethod,
      kind: "voucher",
      netAmount: 0,
      grossAmount: 0,
      recipient: order.customerId,
      servicePeriodStart: null,
      servicePeriodEnd: null,
      seller: null,
      buyer: sql`NULL`,
      linesCount: 0,
      allocatedAmount: 0,
      pendingCollection: null,
      chargesAmount: 0,
      dunningState: "none",
    }),
    updateIfUnchanged(orm, cardOrders, order, { invoiceId: id, invoiceNumber: number, updatedAt: at(1000) }),
  ]);
  return id;
}

describe("listCardOrders", () => {
  it("pages newest first, ties on created_at broken by id descending", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const rows = await insertOrders(
      orm,
      [0, 5, 5, 5, 9, 2, 7].map((minute) => orderRow(customer, { createdAt: at(minute) })),
    );
    const expected = [...rows]
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map((row) => row.id);

    const pages = [];
    for (const n of [1, 2, 3]) pages.push(await listCardOrders(database(), customer, undefined, page(n, 3)));
    expect(pages.map((p) => p.total)).toStrictEqual([7, 7, 7]);
    expect(pages.map((p) => p.rows.length)).toStrictEqual([3, 3, 1]);
    expect(pages.flatMap((p) => p.rows.map((row) => row.id))).toStrictEqual(expected);
    expect(pages[0]!.rows[0]).toStrictEqual(rows[4]);

    expect(await listCardOrders(database(), customer, undefined, page(4, 3))).toMatchObject({ rows: [], total: 7 });
  });

  it("filters by state and totals only that state", async () => {
    const { orm } = database();
    const customer = unique("customer");
    await insertOrders(orm, [
      orderRow(customer, { state: "draft", createdAt: at(1) }),
      orderRow(customer, { state: "submitted", createdAt: at(2) }),
      orderRow(customer, { state: "draft", createdAt: at(3) }),
      orderRow(customer, { state: "cancelled", createdAt: at(4) }),
    ]);
    const drafts = await listCardOrders(database(), customer, "draft", page(1, 25));
    expect(drafts.total).toBe(2);
    expect(drafts.rows.map((row) => [row.state, row.createdAt])).toStrictEqual([
      ["draft", at(3)],
      ["draft", at(1)],
    ]);
    expect((await listCardOrders(database(), customer, "submitted", page(1, 25))).total).toBe(1);
    expect(await listCardOrders(database(), customer, "delivered", page(1, 25))).toMatchObject({ rows: [], total: 0 });
  });

  it("neither lists nor counts another customer's orders", async () => {
    const { orm } = database();
    const [mine, theirs] = [unique("customer"), unique("customer")];
    const [own] = await insertOrders(orm, [orderRow(mine), orderRow(theirs), orderRow(theirs)]);
    const list = await listCardOrders(database(), mine, undefined, page(1, 25));
    expect(list).toMatchObject({ rows: [own], total: 1 });
    expect(await findCardOrder(database(), mine, own!.id)).toStrictEqual(own);
    expect(await findCardOrder(database(), theirs, own!.id)).toBeUndefined();
  });
});

describe("count triggers", () => {
  it("count each insert under its customer and state", async () => {
    const { orm } = database();
    const [customer, other] = [unique("customer"), unique("customer")];
    await insertOrders(orm, [
      orderRow(customer),
      orderRow(customer),
      orderRow(customer, { state: "submitted" }),
      orderRow(other),
    ]);
    expect(await countsOf("card_orders", customer)).toStrictEqual({ all: 3, draft: 2, submitted: 1 });
    expect(await countsOf("card_orders", other)).toStrictEqual({ all: 1, draft: 1 });
  });

  it("move an order between states when its state changes, and only then", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer), orderRow(customer)]);
    await orm.update(cardOrders).set({ state: "submitted" }).where(sql`${cardOrders.id} = ${order!.id}`).run();
    expect(await countsOf("card_orders", customer)).toStrictEqual({ all: 2, draft: 1, submitted: 1 });

    // Setting the same state again, or other columns, changes no count.
    await orm
      .update(cardOrders)
      .set({ state: "submitted", description: "x" })
      .where(sql`${cardOrders.id} = ${order!.id}`)
      .run();
    await orm.update(cardOrders).set({ costCenter: "CC-9" }).where(sql`${cardOrders.customerId} = ${customer}`).run();
    expect(await countsOf("card_orders", customer)).toStrictEqual({ all: 2, draft: 1, submitted: 1 });

    await orm.update(cardOrders).set({ state: "cancelled" }).where(sql`${cardOrders.customerId} = ${customer}`).run();
    expect(await countsOf("card_orders", customer)).toStrictEqual({ all: 2, cancelled: 2, draft: 0, submitted: 0 });
    expect((await listCardOrders(database(), customer, undefined, page(1, 25))).total).toBe(2);
    expect((await listCardOrders(database(), customer, "draft", page(1, 25))).total).toBe(0);
  });

  it("uncount a deleted order", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer), orderRow(customer, { state: "delivered" })]);
    await orm.delete(cardOrders).where(sql`${cardOrders.id} = ${order!.id}`).run();
    expect(await countsOf("card_orders", customer)).toStrictEqual({ all: 1, delivered: 1, draft: 0 });
    expect(await listCardOrders(database(), customer, undefined, page(1, 25))).toMatchObject({
      total: 1,
      rows: [{ state: "delivered" }],
    });
  });

  it("count nothing of a batch that rolled back", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer)]);
    // The second insert repeats the first one's id: the whole batch fails.
    await expect(
      orm.batch([insertCardOrder(orm, orderRow(customer, { state: "submitted" })), insertCardOrder(orm, order!)]),
    ).rejects.toThrow();
    expect(await countsOf("card_orders", customer)).toStrictEqual({ all: 1, draft: 1 });
  });

  it("keep the invoice counts through insert, state change and delete", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const orders = await insertOrders(orm, [orderRow(customer), orderRow(customer), orderRow(customer)]);
    const ids = [];
    for (const order of orders) ids.push(await invoiceOrder(orm, order));
    expect(await countsOf("invoices", customer)).toStrictEqual({ all: 3, open: 3 });

    await orm.update(invoices).set({ state: "paid" }).where(sql`${invoices.id} = ${ids[0]!}`).run();
    await orm.update(invoices).set({ state: "cancelled" }).where(sql`${invoices.id} = ${ids[1]!}`).run();
    await orm.update(invoices).set({ reference: "changed" }).where(sql`${invoices.id} = ${ids[2]!}`).run();
    expect(await countsOf("invoices", customer)).toStrictEqual({ all: 3, cancelled: 1, open: 1, paid: 1 });

    await orm.delete(invoices).where(sql`${invoices.id} = ${ids[1]!}`).run();
    expect(await countsOf("invoices", customer)).toStrictEqual({ all: 2, cancelled: 0, open: 1, paid: 1 });
    expect((await listInvoices(database(), customer, {}, page(1, 25))).total).toBe(2);
  });
});

describe("takeNumber and numberOf", () => {
  it("give consecutive numbers per series and year, formatted SERIES-YYYY-NNNNNN", async () => {
    const { orm } = database();
    expect([
      await nextNumber(orm, "INV", 2031),
      await nextNumber(orm, "INV", 2031),
      await nextNumber(orm, "INV", 2031),
    ]).toStrictEqual(["INV-2031-000001", "INV-2031-000002", "INV-2031-000003"]);
    expect(await nextNumber(orm, "CN", 2031)).toBe("CN-2031-000001");
    expect(await nextNumber(orm, "INV", 2032)).toBe("INV-2032-000001");
    expect(await nextNumber(orm, "CN", 2031)).toBe("CN-2031-000002");
    expect(await nextNumber(orm, "INV", 2031)).toBe("INV-2031-000004");
    expect(await sequenceLast("INV", 2031)).toBe(4);
  });

  it("take no number when the batch that takes it fails, so the series stays gapless", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer)]);
    await invoiceOrder(orm, order!, { year: 2033 });
    expect(await sequenceLast("INV", 2033)).toBe(1);

    // A second invoice for the same order breaks the one-invoice-per-order constraint.
    const fresh = await findCardOrder(database(), customer, order!.id);
    await expect(invoiceOrder(orm, { ...fresh!, invoiceId: null }, { year: 2033 })).rejects.toSatisfy(isWriteConflict);
    expect(await sequenceLast("INV", 2033)).toBe(1);
    expect(await nextNumber(orm, "INV", 2033)).toBe("INV-2033-000002");
  });

  it("store the number the batch took on the invoice and on its order", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer)]);
    const before = (await sequenceLast("INV", 2034)) ?? 0;
    const id = await invoiceOrder(orm, order!, { year: 2034 });
    const expected = `INV-2034-${String(before + 1).padStart(6, "0")}`;
    expect(await findInvoice(database(), customer, id)).toMatchObject({
      id,
      number: expected,
      orderId: order!.id,
      orderState: "draft",
    });
    expect(await findCardOrder(database(), customer, order!.id)).toMatchObject({
      invoiceId: id,
      invoiceNumber: expected,
    });
  });
});

describe("updateIfUnchanged", () => {
  it("updates the row and its updated_at when nobody changed it since it was read", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer)]);
    await updateIfUnchanged(orm, cardOrders, order!, {
      state: "submitted",
      submittedAt: at(5),
      updatedAt: at(5),
    }).run();
    expect(await findCardOrder(database(), customer, order!.id)).toStrictEqual({
      ...order,
      state: "submitted",
      submittedAt: at(5),
      updatedAt: at(5),
    });
  });

  it("rolls back the whole batch with a WriteConflict when the row changed in between", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer)]);
    const stale = order!;
    // Another request changes the order after this one read it.
    await updateIfUnchanged(orm, cardOrders, stale, { state: "cancelled", updatedAt: at(7) }).run();
    const numberBefore = await sequenceLast("INV", 2035);
    const other = orderRow(customer);

    const error = await orm
      .batch([
        insertCardOrder(orm, other),
        takeNumber(orm, "INV", 2035),
        updateIfUnchanged(orm, cardOrders, stale, { state: "submitted", updatedAt: at(8) }),
      ])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isWriteConflict(error)).toBe(true);

    // Nothing of the batch is stored; the concurrent change stands.
    expect(await findCardOrder(database(), customer, other.id)).toBeUndefined();
    expect(await sequenceLast("INV", 2035)).toBe(numberBefore);
    expect(await findCardOrder(database(), customer, stale.id)).toMatchObject({ state: "cancelled", updatedAt: at(7) });
    expect(await countsOf("card_orders", customer)).toStrictEqual({ all: 1, cancelled: 1, draft: 0 });
  });

  it("guards invoices the same way", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer)]);
    const id = await invoiceOrder(orm, order!);
    const invoice = (await findInvoice(database(), customer, id))!;
    await updateIfUnchanged(orm, invoices, invoice, { state: "paid", paidAt: at(9), updatedAt: at(9) }).run();
    await expect(
      updateIfUnchanged(orm, invoices, invoice, { state: "cancelled", cancelledAt: at(10), updatedAt: at(10) }).run(),
    ).rejects.toSatisfy(isWriteConflict);
    expect(await findInvoice(database(), customer, id)).toMatchObject({
      state: "paid",
      paidAt: at(9),
      cancelledAt: null,
      cancelledOn: null,
      updatedAt: at(9),
    });
  });

  it("is told apart from other constraint failures, which are bugs rather than races", async () => {
    const { orm } = database();
    const [order] = await insertOrders(orm, [orderRow(unique("customer"))]);
    const error = await insertCardOrder(orm, order!).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String((error as Error).cause ?? error)).toContain("UNIQUE constraint failed: card_orders.id");
    expect(isWriteConflict(error)).toBe(false);
  });

  it("is told apart from an SQL error, which is no WriteConflict", async () => {
    const { orm } = database();
    const error = await orm.run(sql`SELECT * FROM no_such_table`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(isWriteConflict(error)).toBe(false);
  });
});

describe("listInvoices", () => {
  it("totals from the counts without order_id, from the order's one invoice with it", async () => {
    const { orm } = database();
    const [customer, other] = [unique("customer"), unique("customer")];
    const orders = await insertOrders(
      orm,
      [1, 2, 3, 4].map((minute) => orderRow(customer, { createdAt: at(minute) })),
    );
    const ids = [];
    for (const [i, order] of orders.entries())
      ids.push(await invoiceOrder(orm, order, { state: i === 0 ? "paid" : "open" }));
    const [theirs] = await insertOrders(orm, [orderRow(other)]);
    await invoiceOrder(orm, theirs!);

    const all = await listInvoices(database(), customer, {}, page(1, 3));
    expect(all.total).toBe(4);
    expect(all.rows.map((row) => row.id)).toStrictEqual([ids[3], ids[2], ids[1]]);
    expect((await listInvoices(database(), customer, {}, page(2, 3))).rows.map((row) => row.id)).toStrictEqual([
      ids[0],
    ]);
    expect((await listInvoices(database(), customer, { state: "open" }, page(1, 25))).total).toBe(3);
    expect(
      (await listInvoices(database(), customer, { state: "paid" }, page(1, 25))).rows.map((row) => row.id),
    ).toStrictEqual([ids[0]]);

    const byOrder = await listInvoices(database(), customer, { orderId: orders[1]!.id }, page(1, 25));
    expect(byOrder).toMatchObject({ total: 1, rows: [{ id: ids[1], orderId: orders[1]!.id, orderState: "draft" }] });
    expect(
      await listInvoices(database(), customer, { orderId: orders[1]!.id, state: "paid" }, page(1, 25)),
    ).toMatchObject({ rows: [], total: 0 });
    expect(await listInvoices(database(), customer, { orderId: orders[1]!.id }, page(2, 25))).toMatchObject({
      rows: [],
      total: 1,
    });
    // Another customer's order, and an order without an invoice.
    expect(await listInvoices(database(), customer, { orderId: theirs!.id }, page(1, 25))).toMatchObject({
      rows: [],
      total: 0,
    });
    const [uninvoiced] = await insertOrders(orm, [orderRow(customer)]);
    expect(await listInvoices(database(), customer, { orderId: uninvoiced!.id }, page(1, 25))).toMatchObject({
      rows: [],
      total: 0,
    });
  });

  it("shows the order's state that the order's transition batch set on the invoice", async () => {
    const { orm } = database();
    const customer = unique("customer");
    const [order] = await insertOrders(orm, [orderRow(customer)]);
    const id = await invoiceOrder(orm, order!);
    const invoiced = (await findCardOrder(database(), customer, order!.id))!;
    await orm.batch([
      updateIfUnchanged(orm, cardOrders, invoiced, { state: "submitted", updatedAt: at(2000) }),
      setInvoiceOrderState(orm, order!.id, "submitted"),
    ]);
    expect((await listInvoices(database(), customer, {}, page(1, 25))).rows).toMatchObject([
      { id, orderState: "submitted" },
    ]);
    expect(await findInvoice(database(), customer, id)).toMatchObject({ id, orderState: "submitted" });
  });
});

describe("notification token statements", () => {
  const register = async (orm: Database, ownerId: string, deviceIdentifier: string, value: string, when: string) =>
    orm.batch(
      registerNotificationToken(orm, { ownerId, deviceIdentifier, value, createdAt: when, updatedAt: when }, 20),
    );

  const rowsWithValue = async (value: string) =>
    (
      await env.DB.prepare("SELECT owner_id, device_identifier FROM notification_tokens WHERE value = ?")
        .bind(value)
        .all<{ owner_id: string; device_identifier: string }>()
    ).results;

  it("move a value from one owner to another", async () => {
    const { orm } = database();
    const [first, second, value] = [unique("owner"), unique("owner"), unique("push")];
    await register(orm, first, "phone", value, at(1));
    await register(orm, second, "tablet", value, at(2));
    expect(await rowsWithValue(value)).toStrictEqual([{ owner_id: second, device_identifier: "tablet" }]);
    expect(await listNotificationTokens(database(), first, page(1, 25))).toMatchObject({ rows: [], total: 0 });
  });

  it("move a value between devices of one owner", async () => {
    const { orm } = database();
    const [owner, value] = [unique("owner"), unique("push")];
    await register(orm, owner, "phone", value, at(1));
    await register(orm, owner, "watch", value, at(2));
    expect(await rowsWithValue(value)).toStrictEqual([{ owner_id: owner, device_identifier: "watch" }]);
  });

  it("replace a device's value, keeping created_at and taking the new updated_at", async () => {
    const { orm } = database();
    const [owner, old, fresh] = [unique("owner"), unique("push"), unique("push")];
    await register(orm, owner, "phone", old, at(1));
    await register(orm, owner, "phone", fresh, at(3));
    // The same value again keeps the registration: it is not taken away from itself.
    await register(orm, owner, "phone", fresh, at(4));
    expect(await rowsWithValue(old)).toStrictEqual([]);
    expect(await rowsWithValue(fresh)).toStrictEqual([{ owner_id: owner, device_identifier: "phone" }]);
    expect(await listNotificationTokens(database(), owner, page(1, 25))).toMatchObject({
      rows: [{ deviceIdentifier: "phone", createdAt: at(1), updatedAt: at(4) }],
      total: 1,
    });
  });

  it("advance updated_at by a millisecond when a repeat carries the same or an earlier time", async () => {
    const { orm } = database();
    const owner = unique("owner");
    await register(orm, owner, "phone", unique("push"), "2026-11-22T09:15:30.999Z");
    await register(orm, owner, "phone", unique("push"), "2026-11-22T09:15:30.999Z");
    await register(orm, owner, "phone", unique("push"), "2026-11-22T09:15:30.000Z");
    expect((await listNotificationTokens(database(), owner, page(1, 25))).rows).toStrictEqual([
      { deviceIdentifier: "phone", createdAt: "2026-11-22T09:15:30.999Z", updatedAt: "2026-11-22T09:15:31.001Z" },
    ]);
  });

  it("delete only the caller's device, and list the rest newest first", async () => {
    const { orm } = database();
    const [owner, other] = [unique("owner"), unique("owner")];
    await register(orm, owner, "phone", unique("push"), at(1));
    await register(orm, owner, "tablet", unique("push"), at(2));
    await register(orm, owner, "watch", unique("push"), at(3));
    await register(orm, other, "phone", unique("push"), at(1));

    await deleteNotificationToken(orm, owner, "phone").run();
    await deleteNotificationToken(orm, owner, "unknown").run();
    expect(await listNotificationTokens(database(), owner, page(1, 1))).toMatchObject({
      rows: [{ deviceIdentifier: "watch", createdAt: at(3), updatedAt: at(3) }],
      total: 2,
    });
    expect(
      (await listNotificationTokens(database(), owner, page(2, 1))).rows.map((row) => row.deviceIdentifier),
    ).toStrictEqual(["tablet"]);
    expect((await listNotificationTokens(database(), other, page(1, 25))).rows).toStrictEqual([
      { deviceIdentifier: "phone", createdAt: at(1), updatedAt: at(1) },
    ]);
  });
});

describe("idempotency key statements", () => {
  it("store, find and free an expired response", async () => {
    const { orm } = database();
    const principal = unique("user");
    const row = { principal, key: "k", requestHash: "h", status: 201, expiresAt: at(100) };
    const [stored] = await storeResponse(orm, row, sql`json_set('{"a":1}', '$.b', 2)`);
    expect(stored).toStrictEqual({ body: '{"a":1,"b":2}' });
    expect((await database().read(storedResponse(), { principal, key: "k" }))[0]).toStrictEqual({
      requestHash: "h",
      status: 201,
      body: '{"a":1,"b":2}',
      expiresAt: at(100),
      location: null,
    });
    await expect(storeResponse(orm, row, sql`'{}'`)).rejects.toSatisfy(isWriteConflict);

    // Not yet expired at minute 99: kept. Expired at minute 100: freed.
    await deleteExpiredKey(orm, principal, "k", at(99)).run();
    expect((await database().read(storedResponse(), { principal, key: "k" }))[0]).toBeDefined();
    await deleteExpiredKey(orm, principal, "k", at(100)).run();
    expect((await database().read(storedResponse(), { principal, key: "k" }))[0]).toBeUndefined();
  });

  it("the sweep deletes every expired response, past one chunk, and nothing live", async () => {
    const principal = unique("sweep");
    const now = new Date(Date.UTC(2030, 0, 1));
    await env.DB.prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 1203)
      INSERT INTO idempotency_keys (principal, key, request_hash, status, body, expires_at)
      SELECT ?1, 'expired-' || i, 'h', 201, '{}', ?2 FROM seq`,
    )
      .bind(principal, new Date(now.getTime() - 1).toISOString())
      .run();
    await env.DB.prepare(
      "INSERT INTO idempotency_keys (principal, key, request_hash, status, body, expires_at) VALUES (?1, 'live', 'h', 201, '{}', ?2)",
    )
      .bind(principal, new Date(now.getTime() + 1).toISOString())
      .run();
    const expired = await env.DB.prepare("SELECT count(*) AS n FROM idempotency_keys WHERE expires_at <= ?")
      .bind(now.toISOString())
      .first<number>("n");
    expect(expired).toBeGreaterThanOrEqual(1203);

    expect(await deleteExpiredIdempotencyKeys(env.DB, now)).toBe(expired);
    const left = await env.DB.prepare("SELECT key FROM idempotency_keys WHERE principal = ?")
      .bind(principal)
      .all<{ key: string }>();
    expect(left.results).toStrictEqual([{ key: "live" }]);
  });
});

describe("RequestDatabase.usage", () => {
  it("starts at zero and adds up each query's rows read and written as D1 reports them", async () => {
    const customer = unique("customer");
    const rows = [
      orderRow(customer, { createdAt: at(1) }),
      orderRow(customer, { createdAt: at(2) }),
      orderRow(customer, { createdAt: at(3) }),
    ];
    await insertOrders(database().orm, rows);

    const db = database();
    expect(db.usage).toStrictEqual({ queries: 0, rowsRead: 0, rowsWritten: 0 });

    const direct = await env.DB.prepare("SELECT * FROM card_orders WHERE id = ? AND customer_id = ?")
      .bind(rows[0]!.id, customer)
      .all();
    await findCardOrder(db, customer, rows[0]!.id);
    expect(db.usage).toStrictEqual({ queries: 1, rowsRead: direct.meta.rows_read, rowsWritten: 0 });
    expect(db.usage.rowsRead).toBeGreaterThan(0);

    // A batch counts each of its statements.
    await listCardOrders(db, customer, undefined, page(1, 25));
    expect(db.usage.queries).toBe(3);
    expect(db.usage.rowsRead).toBeGreaterThanOrEqual(direct.meta.rows_read + 3);
    expect(db.usage.rowsWritten).toBe(0);

    const readBefore = db.usage.rowsRead;
    const probe = orderRow(customer);
    const directWrite = await env.DB.prepare(
      "INSERT INTO card_orders (id, customer_id, state, created_at, updated_at, payment_method, voucher_category) " +
        "VALUES (?, ?, 'draft', ?, ?, 'bank_transfer', 'mixed')",
    )
      .bind(crypto.randomUUID(), customer, at(4), at(4))
      .run();
    await insertCardOrder(db.orm, probe).run();
    expect(db.usage.queries).toBe(4);
    expect(db.usage.rowsWritten).toBe(directWrite.meta.rows_written);
    expect(db.usage.rowsWritten).toBeGreaterThan(0);
    expect(db.usage.rowsRead - readBefore).toBe(directWrite.meta.rows_read);
    expect(db.bookmark()).toEqual(expect.any(String));
  });

  it("is per instance: a second request's database starts from zero", async () => {
    const first = database();
    await first.orm.run(sql`SELECT 1`);
    expect(first.usage.queries).toBe(1);
    expect(database().usage).toStrictEqual({ queries: 0, rowsRead: 0, rowsWritten: 0 });
  });
});

describe("compiled reads", () => {
  it("refuses a read that selects two columns of one name, which D1 would answer as one", () => {
    const twice = preparer()
      .select({ order: cardOrders.id, invoice: invoices.id })
      .from(cardOrders)
      .innerJoin(invoices, eq(invoices.orderId, cardOrders.id))
      .prepare();
    expect(() => compile(twice)).toThrow("compile: two selected columns are named id; alias one");
    const aliased = preparer()
      .select({ order: cardOrders.id, invoice: sql<string>`${invoices.id}`.as("invoice_id") })
      .from(cardOrders)
      .innerJoin(invoices, eq(invoices.orderId, cardOrders.id))
      .prepare();
    expect(compile(aliased).rows([{ id: "o", invoice_id: "i" }])).toStrictEqual([{ order: "o", invoice: "i" }]);
  });
});
