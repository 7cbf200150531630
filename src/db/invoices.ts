import { and, count, desc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { PageRequest } from "../pagination";
import type { Database } from "./client";
import { cardOrders, invoiceCounts, invoices, numberSequences, type InvoiceRow } from "./schema";

export type InvoiceWithOrderState = InvoiceRow & { orderState: string };

// `orders[].state` is the card order's current state. A correlated subquery rather than a join: it
// runs for the rows returned only, where a join would also look up the order of every row that
// OFFSET skips. The alias keeps column names unique, which the D1 result mapping needs (client.ts).
const withOrderState = {
  ...getTableColumns(invoices),
  orderState: sql<string>`(SELECT ${cardOrders.state} FROM ${cardOrders} WHERE ${cardOrders.id} = ${invoices.orderId})`.as("order_state"),
};

export function findInvoice(orm: Database, customerId: string, id: string): Promise<InvoiceWithOrderState | undefined> {
  return orm
    .select(withOrderState)
    .from(invoices)
    .where(and(eq(invoices.id, id), eq(invoices.customerId, customerId)))
    .get();
}

export interface InvoiceFilter {
  state?: string;
  orderId?: string;
}

/** One page, newest first, and its total, in one round trip. */
export async function listInvoices(orm: Database, customerId: string, filter: InvoiceFilter, page: PageRequest) {
  const where = and(
    eq(invoices.customerId, customerId),
    filter.state === undefined ? undefined : eq(invoices.state, filter.state),
    filter.orderId === undefined ? undefined : eq(invoices.orderId, filter.orderId),
  );
  const [rows, total] = await orm.batch([
    orm
      .select(withOrderState)
      .from(invoices)
      .where(where)
      .orderBy(desc(invoices.createdAt), desc(invoices.id))
      .limit(page.pageSize)
      .offset(page.offset),
    // An order has at most one invoice, so counting by order reads one row at most; otherwise the
    // per-state counts kept by triggers answer without touching the invoices.
    filter.orderId === undefined
      ? orm
          .select({ total: sql<number>`coalesce(sum(${invoiceCounts.total}), 0)` })
          .from(invoiceCounts)
          .where(and(eq(invoiceCounts.customerId, customerId), filter.state === undefined ? undefined : eq(invoiceCounts.state, filter.state)))
      : orm.select({ total: count() }).from(invoices).where(where),
  ]);
  return { rows, total: Number(total[0]?.total ?? 0) };
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
