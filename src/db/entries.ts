import { and, desc, eq, exists, getTableColumns, sql } from "drizzle-orm";
import type { PageRequest } from "../pagination/query";
import { byId as cardOrderById } from "./card-orders";
import type { Database, RequestDatabase } from "./client";
import { columnsOf, compile, lazily, param, queryBuilder as qb } from "./compiled";
import { cardOrderEntries, cardOrders, type CardOrderEntryRow, type CardOrderRow } from "./schema";
import { advancedTimestamp } from "./timestamps";

export function insertEntry(orm: Database, row: CardOrderEntryRow) {
  return orm.insert(cardOrderEntries).values(row);
}

export function deleteEntry(orm: Database, orderId: string, id: string) {
  return orm.delete(cardOrderEntries).where(and(eq(cardOrderEntries.id, id), eq(cardOrderEntries.orderId, orderId)));
}

/**
 * The change an entry makes to its order, first in the entry's batch: `updated_at` advances, and
 * the batch rolls back (a write conflict) unless the order is still a draft, still has room for one
 * more entry when one is added (`room`), and still has the entry when one is deleted (`entryId`).
 * The entry's own statement then moves `entries_count` and `entries_amount` (triggers).
 */
export function touchDraft(orm: Database, orderId: string, now: string, check: { room: number } | { entryId: string }) {
  const stillThere = "entryId" in check ? exists(qb.select({ one: sql`1` }).from(cardOrderEntries).where(and(eq(cardOrderEntries.id, check.entryId), eq(cardOrderEntries.orderId, orderId)))) : sql`1`;
  return orm
    .update(cardOrders)
    .set({
      state: sql`CASE WHEN ${cardOrders.state} = 'draft' AND ${stillThere} THEN ${cardOrders.state} END`,
      entriesCount: "room" in check ? sql`CASE WHEN ${cardOrders.entriesCount} < ${check.room} THEN ${cardOrders.entriesCount} END` : undefined,
      updatedAt: advancedTimestamp(cardOrders.updatedAt, now),
    })
    .where(eq(cardOrders.id, orderId));
}

const entryOfOrder = lazily(() =>
  compile<CardOrderEntryRow>(
    qb.select().from(cardOrderEntries).where(and(eq(cardOrderEntries.id, param("id")), eq(cardOrderEntries.orderId, param("order")))),
    columnsOf(cardOrderEntries),
  ),
);

/** The customer's card order and one entry of it, in one round trip. */
export async function findOrderAndEntry(db: RequestDatabase, customerId: string, orderId: string, entryId: string) {
  const [[order], [entry]] = await db.readBoth([cardOrderById(), { id: orderId, customer: customerId }], [entryOfOrder(), { id: entryId, order: orderId }]);
  return { order, entry };
}

// Joined through the order, the customer's or nothing: the entries of another customer's order are
// not even read (the outer loop is that one order row).
const entryPage = lazily(() =>
  compile<CardOrderEntryRow>(
    qb
      .select(getTableColumns(cardOrderEntries))
      .from(cardOrders)
      .innerJoin(cardOrderEntries, eq(cardOrderEntries.orderId, cardOrders.id))
      .where(and(eq(cardOrders.id, param("order")), eq(cardOrders.customerId, param("customer"))))
      .orderBy(desc(cardOrderEntries.createdAt), desc(cardOrderEntries.id))
      .limit(param("limit"))
      .offset(param("offset")),
    columnsOf(cardOrderEntries),
  ),
);

/** The customer's card order (its `entries_count` is the total) and a page of its entries, newest first. */
export async function listEntries(db: RequestDatabase, customerId: string, orderId: string, page: PageRequest): Promise<{ order: CardOrderRow | undefined; rows: CardOrderEntryRow[] }> {
  const values = { id: orderId, order: orderId, customer: customerId, limit: page.pageSize, offset: page.offset };
  const [[order], rows] = await db.readBoth([cardOrderById(), values], [entryPage(), values]);
  return { order, rows };
}
