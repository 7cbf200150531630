import * as z from "zod/mini";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { cardOrders } from "./card-order";
import { formatCents } from "../domain/money";
import { amountInput, dateTime, money, printableText, requestBody, requiredText, xmlCarriable } from "./formats";
import { namedRequest } from "./registry";
import { resource } from "./resource";

/** A voucher card of a card order (docs/api.md part 10). */
export const cardOrderEntries = sqliteTable(
  "card_order_entries",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => cardOrders.id),
    voucherOwnerId: text("voucher_owner_id").notNull(),
    cardHolderName: text("card_holder_name").notNull(),
    // Cents.
    amount: integer("amount").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("card_order_entries_order_created").on(t.orderId, t.createdAt, t.id)],
);

export type CardOrderEntryRow = typeof cardOrderEntries.$inferSelect;

const entry = resource<CardOrderEntryRow>()(
  "CardOrderEntry",
  (f) => ({
    id: f.column(() => z.string()),
    type: f.from(
      () => z.literal("card_order_entry"),
      () => "card_order_entry" as const,
    ),
    voucher_owner_id: f.column(() =>
      z.string().register(z.globalRegistry, {
        description: "The voucher owner who gets the card: the `sub` of that owner's tokens.",
      }),
    ),
    card_holder_name: f.column(() =>
      z.string().register(z.globalRegistry, { description: "The name printed on the card." }),
    ),
    amount: f.from(
      () => money().register(z.globalRegistry, { description: "The value loaded on the card, EUR." }),
      (row) => formatCents(row.amount),
    ),
    created_at: f.column(dateTime),
    updated_at: f.column(dateTime),
  }),
  "One voucher card of a card order.",
);

/** A card order entry on the wire: docs/api.md part 10's fields in its order. */
export const Entry = entry.schema;
export const toEntry = entry.show;

/** A new entry (docs/api.md part 10): a card holds 26 characters; an entry's value is at least 1.00. */
export const CreateEntry = namedRequest("CreateCardOrderEntry", () =>
  requestBody({
    voucher_owner_id: requiredText(255, xmlCarriable()),
    card_holder_name: printableText(26),
    amount: amountInput(100),
  }),
);
