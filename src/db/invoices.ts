import { and, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { columnsOf, compile, lazily, param, queryBuilder as qb } from "./compiled";
import type { CardOrderState } from "../domain/card-orders";
import { byId as cardOrderById } from "./card-orders";
import { cardOrders, invoiceCounts, invoices, numberSequences, type CardOrderRow, type InvoiceRow } from "./schema";

const byId = lazily(() =>
  compile<InvoiceRow>(qb.select().from(invoices).where(and(eq(invoices.id, param("id")), eq(invoices.customerId, param("customer")))), columnsOf(invoices)),
);

export async function findInvoice(db: RequestDatabase, customerId: string, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await db.read(byId(), { id, customer: customerId });
  return row;
}

const voucherInvoiceOfOrder = lazily(() =>
  compile<InvoiceRow>(
    qb
      .select()
      .from(invoices)
      .where(inArray(invoices.id, qb.select({ id: cardOrders.invoiceId }).from(cardOrders).where(and(eq(cardOrders.id, param("id")), eq(cardOrders.customerId, param("customer")))))),
    columnsOf(invoices),
  ),
);

/** The customer's card order and the voucher invoice linked to it (if any), in one round trip. */
export async function findOrderAndVoucherInvoice(db: RequestDatabase, customerId: string, id: string): Promise<{ order?: CardOrderRow; invoice?: InvoiceRow }> {
  const values = { id, customer: customerId };
  const [[order], [invoice]] = await db.readBoth([cardOrderById(), values], [voucherInvoiceOfOrder(), values]);
  return { order, invoice };
}

/** Keeps an order's state on its invoices (`orders[].state`); part of the order's transition batch. */
export function setInvoiceOrderState(orm: Database, orderId: string, state: CardOrderState) {
  return orm.update(invoices).set({ orderState: state }).where(eq(invoices.orderId, orderId));
}

interface InvoiceFilter {
  state?: string;
  orderId?: string;
}

// One statement per filter combination, so that each has a fixed plan on its own index. Filtered by
// order, the customer and state terms are written `+column = ?` (SQLite's unary plus), which no
// index can serve: the plan must take the order's index, which holds a handful of rows.
function listReads(byState: boolean, byOrder: boolean) {
  const match = (column: SQLiteColumn, name: string) => (byOrder ? sql`+${column} = ${param(name)}` : eq(column, param(name)));
  const where = and(
    match(invoices.customerId, "customer"),
    byState ? match(invoices.state, "state") : undefined,
    byOrder ? eq(invoices.orderId, param("order")) : undefined,
  );
  return {
    page: compile<InvoiceRow>(
      qb.select().from(invoices).where(where).orderBy(desc(invoices.createdAt), desc(invoices.id)).limit(param("limit")).offset(param("offset")),
      columnsOf(invoices),
    ),
    // An order has a handful of invoices (its voucher invoices, production and shipping), so counting
    // by order reads only those; otherwise the per-state counts kept by triggers answer.
    total: compile<{ total: number }>(
      byOrder
        ? qb.select({ total: count().as("total") }).from(invoices).where(where)
        : qb
            .select({ total: sql<number>`coalesce(sum(${invoiceCounts.total}), 0)`.as("total") })
            .from(invoiceCounts)
            .where(and(eq(invoiceCounts.customerId, param("customer")), byState ? eq(invoiceCounts.state, param("state")) : undefined)),
      { total: "total" },
    ),
  };
}

const shapes = [false, true].flatMap((byState) => [false, true].map((byOrder) => lazily(() => listReads(byState, byOrder))));
const invoiceListReads = (filter: InvoiceFilter) => shapes[(filter.state === undefined ? 0 : 2) + (filter.orderId === undefined ? 0 : 1)]!();

/** One page, newest first, and its total, in one round trip. */
export async function listInvoices(db: RequestDatabase, customerId: string, filter: InvoiceFilter, page: PageRequest) {
  const { page: pageRead, total: totalRead } = invoiceListReads(filter);
  const values = { customer: customerId, state: filter.state, order: filter.orderId, limit: page.pageSize, offset: page.offset };
  const [rows, [total]] = await db.readBoth([pageRead, values], [totalRead, values]);
  return { rows, total: Number(total?.total ?? 0) };
}

/** Takes the next number of a series for a UTC year; read it back with `numberOf` in the same batch. */
export function takeNumber(orm: Database, series: string, year: number) {
  return orm
    .insert(numberSequences)
    .values({ series, year, last: 1 })
    .onConflictDoUpdate({ target: [numberSequences.series, numberSequences.year], set: { last: sql`${numberSequences.last} + 1` } });
}

/** The number `takeNumber` took, formatted `SERIES-YYYY-NNNNNN`, as an SQL value. */
export function numberOf(series: string, year: number): SQL<string> {
  return sql<string>`(SELECT printf('%s-%d-%06d', ${numberSequences.series}, ${numberSequences.year}, ${numberSequences.last}) FROM ${numberSequences} WHERE ${numberSequences.series} = ${series} AND ${numberSequences.year} = ${year})`;
}

export function insertInvoice(orm: Database, row: Omit<InvoiceRow, "number"> & { number: SQL<string> }) {
  return orm.insert(invoices).values(row);
}
