import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, preparer, one, param, queryBuilder as qb } from "./compiled";
import type { CardOrderState } from "../domain/card-orders";
import type { InvoiceState } from "../domain/invoices";
import { keptTotal, pageReads, readPage } from "./keyset";
import { keptLists, cardOrders, invoices, numberSequences, type InvoiceRow } from "./schema";

export const byId = lazily(() =>
  compile<InvoiceRow>(
    preparer()
      .select()
      .from(invoices)
      .where(and(eq(invoices.id, param("id")), eq(invoices.customerId, param("customer"))))
      .prepare(),
  ),
);

export async function findInvoice(
  db: RequestDatabase,
  customerId: string,
  id: string,
): Promise<InvoiceRow | undefined> {
  const [row] = await db.read(byId(), { id, customer: customerId });
  return row;
}

const voucherInvoiceOfOrder = lazily(() =>
  compile<InvoiceRow>(
    preparer()
      .select()
      .from(invoices)
      .where(
        inArray(
          invoices.id,
          qb
            .select({ id: cardOrders.invoiceId })
            .from(cardOrders)
            .where(and(eq(cardOrders.id, param("id")), eq(cardOrders.customerId, param("customer")))),
        ),
      )
      .prepare(),
  ),
);

const anyById = lazily(() =>
  compile<InvoiceRow>(
    preparer()
      .select()
      .from(invoices)
      .where(eq(invoices.id, param("id")))
      .prepare(),
  ),
);

/** Invoice `id`, whoever's: for the back office (payments), which works across customers. */
export const anyInvoiceRead = (id: string) => one(anyById(), { id });

/** The customer's invoice `id`, for a route's load step. */
export const invoiceRead = (customerId: string, id: string) => one(byId(), { id, customer: customerId });

/** The voucher invoice linked to the customer's card order `id`, if any. */
export const voucherInvoiceRead = (customerId: string, id: string) =>
  one(voucherInvoiceOfOrder(), { id, customer: customerId });

/** Keeps an order's state on its invoices (`orders[].state`); part of the order's transition batch. */
export function setInvoiceOrderState(orm: Database, orderId: string, state: CardOrderState) {
  return orm.update(invoices).set({ orderState: state }).where(eq(invoices.orderId, orderId));
}

// One set of statements per filter combination, so that each has a fixed plan on its own index.
// Filtered by order, the customer and state terms are written `+column = ?` (SQLite's unary plus),
// which no index can serve: the plan must take the order's index, which holds a handful of rows.
function listReads(byState: boolean, byOrder: boolean) {
  const match = (column: SQLiteColumn, name: string) =>
    byOrder ? sql`+${column} = ${param(name)}` : eq(column, param(name));
  const orderTotal = keptTotal(keptLists.orderInvoices, param("order"), param("filter"));
  return pageReads<InvoiceRow>({
    table: invoices,
    where: and(
      match(invoices.customerId, "customer"),
      byState ? match(invoices.state, "state") : undefined,
      byOrder ? eq(invoices.orderId, param("order")) : undefined,
    )!,
    // An order's invoices are counted per order: counted only when the order is the customer's, so
    // that another customer's order shows no total either.
    total: byOrder
      ? sql`CASE WHEN EXISTS (SELECT 1 FROM ${cardOrders} WHERE ${cardOrders.id} = ${param("order")} AND ${
          cardOrders.customerId
        } = ${param("customer")}) THEN ${orderTotal} ELSE 0 END`
      : keptTotal(keptLists.invoices, param("customer"), param("filter")),
    key: [invoices.createdAt, invoices.id],
  });
}

const shapes = [false, true].flatMap((byState) =>
  [false, true].map((byOrder) => lazily(() => listReads(byState, byOrder))),
);

interface InvoiceFilter {
  state?: InvoiceState;
  orderId?: string;
}

/** One page of the customer's invoices, newest first, and their total (one round trip). */
export function listInvoices(
  db: RequestDatabase,
  customerId: string,
  { state, orderId }: InvoiceFilter,
  page: PageRequest,
) {
  const reads = shapes[(state === undefined ? 0 : 2) + (orderId === undefined ? 0 : 1)]!();
  return readPage(db, reads, { customer: customerId, state, order: orderId, filter: state ?? "" }, page);
}

/** Takes the next number of a series for a UTC year; read it back with `numberOf` in the same batch. */
export function takeNumber(orm: Database, series: string, year: number) {
  return orm
    .insert(numberSequences)
    .values({ series, year, last: 1 })
    .onConflictDoUpdate({
      target: [numberSequences.series, numberSequences.year],
      set: { last: sql`${numberSequences.last} + 1` },
    });
}

/** The number `takeNumber` took, formatted `SERIES-YYYY-NNNNNN`, as an SQL value. */
export function numberOf(series: string, year: number): SQL<string> {
  return sql<string>`(SELECT printf('%s-%d-%06d', ${numberSequences.series}, ${numberSequences.year}, ${
    numberSequences.last
  }) FROM ${numberSequences} WHERE ${numberSequences.series} = ${series} AND ${numberSequences.year} = ${year})`;
}

export function insertInvoice(
  orm: Database,
  row: Omit<InvoiceRow, "number" | "buyer"> & { number: SQL<string>; buyer: SQL },
) {
  return orm.insert(invoices).values(row);
}
