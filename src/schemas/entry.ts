import * as z from "zod/mini";
import type { CardOrderEntryRow } from "../db/schema";
import { formatCents } from "../domain/money";
import { amountInput, dateTime, money, printableText, requestBody, requiredText, xmlCarriable } from "./formats";
import { named, namedResponse } from "./registry";

/** A card order entry on the wire: docs/api.md part 10's fields in its order. */
export const Entry = namedResponse(
  "CardOrderEntry",
  () =>
    z.strictObject({
      id: z.string(),
      type: z.literal("card_order_entry"),
      voucher_owner_id: z.string().register(z.globalRegistry, {
        description: "The voucher owner who gets the card: the `sub` of that owner's tokens.",
      }),
      card_holder_name: z.string().register(z.globalRegistry, { description: "The name printed on the card." }),
      amount: money().register(z.globalRegistry, { description: "The value loaded on the card, EUR." }),
      created_at: dateTime(),
      updated_at: dateTime(),
    }),
  "One voucher card of a card order.",
);

/** A new entry (docs/api.md part 10): a card holds 26 characters; an entry's value is at least 1.00. */
export const CreateEntry = named(
  "CreateCardOrderEntry",
  requestBody({
    voucher_owner_id: requiredText(255, xmlCarriable()),
    card_holder_name: printableText(26),
    amount: amountInput(100),
  }),
);

export const toEntry = (row: CardOrderEntryRow): z.input<typeof Entry> => ({
  id: row.id,
  type: "card_order_entry",
  voucher_owner_id: row.voucherOwnerId,
  card_holder_name: row.cardHolderName,
  amount: formatCents(row.amount),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});
