import { and, eq, exists, sql } from "drizzle-orm";
import { pageReads, readPage } from "./keyset";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, preparer, one, param, queryBuilder as qb } from "./compiled";
import { cardOrderEntries, cardOrders, type CardOrderEntryRow } from "./schema";
import { guarded } from "./guards";
import { advancedTimestamp } from "./timestamps";

export function insertEntry(orm: Database, row: CardOrderEntryRow) {
  return orm.insert(cardOrderEntries).values(row);
}

export function deleteEntry(orm: Database, orderId: string, id: string) {
  return orm.delete(cardOrderEntries).where(and(eq(cardOrderEntries.id, id), eq(cardOrderEntries.orderId, orderId)));
}

/**
 * The change an entry makes to its order, first in the entry's batch: `updated_at` advances, and
 * the batch rolls back (a write conflict, db/guards.ts) unless the order still has the entry when one
 * is deleted (`entryId`: guard `entry_exists`), is still a draft (`order_draft`), and still has room
 * for one more entry when one is added (`room`: `entries_room`); the first of these that fails names
 * the conflict. The entry's own statement then moves `entries_count` and `entries_amount` (triggers).
 */
export function touchDraft(orm: Database, orderId: string, now: string, check: { room: number } | { entryId: string }) {
  const { state } = cardOrders;
  const draft = (value: unknown) => guarded(sql`${state} = 'draft'`, value, "order_draft");
  return orm
    .update(cardOrders)
    .set({
      state:
        "entryId" in check
          ? guarded(
              exists(
                qb
                  .select({ one: sql`1` })
                  .from(cardOrderEntries)
                  .where(and(eq(cardOrderEntries.id, check.entryId), eq(cardOrderEntries.orderId, orderId))),
              ),
              draft(state),
              "entry_exists",
            )
          : draft(guarded(sql`${cardOrders.entriesCount} < ${check.room}`, state, "entries_room")),
      updatedAt: advancedTimestamp(cardOrders.updatedAt, now),
    })
    .where(eq(cardOrders.id, orderId));
}

const entryOfOrder = lazily(() =>
  compile<CardOrderEntryRow>(
    preparer()
      .select()
      .from(cardOrderEntries)
      .where(and(eq(cardOrderEntries.id, param("id")), eq(cardOrderEntries.orderId, param("order"))))
      .prepare(),
  ),
);

/** An entry of the order (whoever's: read with the customer's order, it is the customer's only if that is). */
export const entryRead = (orderId: string, entryId: string) => one(entryOfOrder(), { id: entryId, order: orderId });

// By page number, joined through the order, the customer's or nothing: the entries of another
// customer's order are not even read (the outer loop is that one order row). A cursor was signed for
// this customer's list, so its pages need no join. The total is the order's entries_count, NULL (no
// such list) when the order is not the customer's.
const entryReads = lazily(() =>
  pageReads<CardOrderEntryRow>({
    table: cardOrderEntries,
    from: { owner: cardOrders, on: eq(cardOrderEntries.orderId, cardOrders.id) },
    where: and(eq(cardOrders.id, param("order")), eq(cardOrders.customerId, param("customer")))!,
    seek: { where: eq(cardOrderEntries.orderId, param("order")) },
    total: sql`(SELECT ${cardOrders.entriesCount} FROM ${cardOrders} WHERE ${cardOrders.id} = ${param("order")} AND ${
      cardOrders.customerId
    } = ${param("customer")})`,
    key: [cardOrderEntries.createdAt, cardOrderEntries.id],
  }),
);

/** A page of the customer's card order's entries, newest first, and their total; undefined total: no such order. */
export const listEntries = (db: RequestDatabase, customerId: string, orderId: string, page: PageRequest) =>
  readPage(db, entryReads(), { order: orderId, customer: customerId }, page);
