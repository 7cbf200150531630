import { and, eq, exists, gt, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, preparer, one, param, queryBuilder as qb } from "./compiled";
import type { CardOrderState } from "../domain/card-orders";
import type { InvoiceState, LISTED_DUNNING_STATES } from "../domain/invoices";
import { keptTotal, pageReads, readPage } from "./keyset";
import { keptLists, cardOrders, invoices, listCounts, numberSequences, type InvoiceRow } from "./schema";

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

/** Invoice `id`, whoever's: for the accounts department's `GET /invoices/{id}` (docs/api.md part 18). */
export async function findAnyInvoice(db: RequestDatabase, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await db.read(anyById(), { id });
  return row;
}

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
// `scoped`: one customer's invoices; otherwise every customer's (the accounts department's view,
// docs/api.md part 18), whose total is kept under scope ''.
function listReads(scoped: boolean, byState: boolean, byOrder: boolean) {
  const match = (column: SQLiteColumn, name: string) =>
    byOrder ? sql`+${column} = ${param(name)}` : eq(column, param(name));
  // Every customer's by state: on invoices_state_created, which only this term's collation can take
  // (src/schemas/invoice.ts says why); the states are lower case, so it matches the rows `=` would.
  const stateTerm =
    byOrder || scoped ? match(invoices.state, "state") : sql`${invoices.state} = ${param("state")} COLLATE NOCASE`;
  const orderTotal = keptTotal(keptLists.orderInvoices, param("order"), param("filter"));
  return pageReads<InvoiceRow>({
    table: invoices,
    // Every customer's, unfiltered: `1 = 1`, the page of a whole list read in its index's order (keyset.ts).
    where:
      and(
        scoped ? match(invoices.customerId, "customer") : undefined,
        byState ? stateTerm : undefined,
        byOrder ? eq(invoices.orderId, param("order")) : undefined,
      ) ?? sql`1 = 1`,
    // An order's invoices are counted per order: counted only when the order is the customer's, so
    // that another customer's order shows no total either.
    // CASE is a template: drizzle has no builder for it.
    total: byOrder
      ? scoped
        ? sql`CASE WHEN ${exists(
            qb
              .select({ one: sql`1` })
              .from(cardOrders)
              .where(and(eq(cardOrders.id, param("order")), eq(cardOrders.customerId, param("customer")))),
          )} THEN ${orderTotal} ELSE 0 END`
        : orderTotal
      : scoped
        ? keptTotal(keptLists.invoices, param("customer"), param("filter"))
        : keptTotal(keptLists.allInvoices, "", param("filter")),
    key: [invoices.createdAt, invoices.id],
  });
}

type ListedDunningState = (typeof LISTED_DUNNING_STATES)[number];

// The open invoices being chased: by their stored dunning state, and/or overdue (an open amount, due
// before today). `state = 'open'` is written as a literal: the partial indexes on open invoices
// (invoices_open_dunning_created, invoices_customer_open_dunning_created) serve only a query that
// says so in its text; without a dunning state, the (customer,) state index serves it. An overdue
// page reads, beyond its rows, the open invoices between them that are not overdue yet (page 1: the
// newest open invoices, those within their payment term; a cursor's page starts at its row). The overdue
// total sums the open_due counts of the days before today (drizzle/0016_accounts_view.sql): a row per
// due day, never a row per invoice.
function chasedReads(scoped: boolean, byDunning: boolean, overdue: boolean) {
  const scope = scoped ? param("customer") : "";
  const dunningTotal = keptTotal(keptLists.dunningInvoices, scope, param("dunning"));
  const overdueTotal = sql`coalesce(${qb
    .select({ total: sql`sum(${listCounts.total})` })
    .from(listCounts)
    .where(
      and(
        eq(listCounts.list, keptLists.openDue),
        eq(listCounts.scope, scope),
        lt(listCounts.filter, param("today")),
        // The filter is '<due_on>/<dunning_state>': the state follows the day's 10 characters and '/'.
        byDunning ? eq(sql`substr(${listCounts.filter}, 12)`, param("dunning")) : undefined,
      ),
    )}, 0)`;
  return pageReads<InvoiceRow>({
    table: invoices,
    where: and(
      scoped ? eq(invoices.customerId, param("customer")) : undefined,
      // Every customer's overdue ones, without a dunning state, on invoices_state_created (as listReads).
      scoped || byDunning ? sql`${invoices.state} = 'open'` : sql`${invoices.state} = 'open' COLLATE NOCASE`,
      byDunning ? eq(invoices.dunningState, param("dunning")) : undefined,
      overdue ? gt(sql`coalesce(${invoices.grossAmount}, 0)`, invoices.allocatedAmount) : undefined,
      overdue ? lt(invoices.dueOn, param("today")) : undefined,
    )!,
    total: overdue ? overdueTotal : dunningTotal,
    key: [invoices.createdAt, invoices.id],
  });
}

const shapes = [false, true].flatMap((scoped) =>
  [false, true].flatMap((byState) => [false, true].map((byOrder) => lazily(() => listReads(scoped, byState, byOrder)))),
);
const chasedShapes = [false, true].flatMap((scoped) =>
  [false, true].flatMap((byDunning) =>
    [false, true].map((overdue) =>
      byDunning || overdue ? lazily(() => chasedReads(scoped, byDunning, overdue)) : undefined,
    ),
  ),
);

interface InvoiceFilter {
  state?: InvoiceState;
  orderId?: string;
  dunning?: ListedDunningState;
  /** Only the overdue ones (open, with an open amount, due before this day: today in BUSINESS_TIME_ZONE). */
  overdueOn?: string;
}

/**
 * One page of the customer's invoices, or (`customer` undefined) every customer's, newest first, and
 * their total (one round trip). Overdue and dunning lists are of open invoices, of any order: the
 * caller answers the other combinations itself (routes/invoices).
 */
export function listInvoices(
  db: RequestDatabase,
  customer: string | undefined,
  { state, orderId, dunning, overdueOn }: InvoiceFilter,
  page: PageRequest,
) {
  const scoped = customer !== undefined;
  const values = { customer, state, order: orderId, dunning, today: overdueOn, filter: state ?? "" };
  if (dunning !== undefined || overdueOn !== undefined) {
    const reads = chasedShapes[(scoped ? 4 : 0) + (dunning === undefined ? 0 : 2) + (overdueOn === undefined ? 0 : 1)]!;
    return readPage(db, reads!(), values, page);
  }
  const reads = shapes[(scoped ? 4 : 0) + (state === undefined ? 0 : 2) + (orderId === undefined ? 0 : 1)]!();
  return readPage(db, reads, values, page);
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
