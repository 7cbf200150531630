import { and, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { columnsOf, compile, lazily, param, queryBuilder as qb } from "./compiled";
import type { CardOrderState } from "../domain/card-orders";
import { invoiceCounts, invoices, numberSequences, type InvoiceRow } from "./schema";

const byId = lazily(() =>
  compile<InvoiceRow>(qb.select().from(invoices).where(and(eq(invoices.id, param("id")), eq(invoices.customerId, param("customer")))), columnsOf(invoices)),
);

export async function findInvoice(db: RequestDatabase, customerId: string, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await db.read(byId(), { id, customer: customerId });
  return row;
}

/** Keeps an invoiced order's state on its invoice; part of the order's transition batch. */
export function setInvoiceOrderState(orm: Database, orderId: string, state: CardOrderState) {
  return orm.update(invoices).set({ orderState: state }).where(eq(invoices.orderId, orderId));
}

interface InvoiceFilter {
  state?: string;
  orderId?: string;
}

// One statement per filter combination, so that each has a fixed plan on its own index.
function listReads(byState: boolean, byOrder: boolean) {
  const where = and(
    eq(invoices.customerId, param("customer")),
    byState ? eq(invoices.state, param("state")) : undefined,
    byOrder ? eq(invoices.orderId, param("order")) : undefined,
  );
  return {
    page: compile<InvoiceRow>(
      qb.select().from(invoices).where(where).orderBy(desc(invoices.createdAt), desc(invoices.id)).limit(param("limit")).offset(param("offset")),
      columnsOf(invoices),
    ),
    // An order has at most one invoice, so counting by order reads one row at most; otherwise the
    // per-state counts kept by triggers answer without touching the invoices.
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
