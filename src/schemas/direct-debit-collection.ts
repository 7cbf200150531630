import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import * as z from "zod/mini";
import { COLLECTION_STATES, type CollectionState, type DebitState, type SequenceType } from "../domain/direct-debits";
import { formatCents } from "../domain/money";
import { isDay } from "../domain/time";
import { date, dateTime, money, requestBody } from "./formats";
import { invoices } from "./invoice";
import { namedRequest } from "./registry";
import { resource } from "./resource";

// A direct debit collection (docs/api.md part 16): the seller's request to collect what its customers'
// mandates allow on one day, written once as a pain.008 file. Its debits, one per invoice, keep what
// the file says of each (the mandate, the account, the sequence type, the end-to-end id) and how it
// ended: settlement and returns are read from bank statements by their end-to-end ids.

export const directDebitCollections = sqliteTable(
  "direct_debit_collections",
  {
    id: text("id").primaryKey(),
    collectionDate: text("collection_date").notNull(),
    messageId: text("message_id").notNull(),
    transactionsCount: integer("transactions_count").notNull(),
    // Cents.
    controlSum: integer("control_sum").notNull(),
    state: text("state").$type<CollectionState>().notNull(),
    // The creditor as configured when the collection was made (JSON, domain/einvoice.ts Seller): the
    // file says what it said then, whenever it is first asked for.
    creditor: text("creditor").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("direct_debit_collections_message").on(t.messageId),
    index("direct_debit_collections_created").on(t.createdAt, t.id),
  ],
);

export type DirectDebitCollectionRow = typeof directDebitCollections.$inferSelect;

export const directDebits = sqliteTable(
  "direct_debits",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => directDebitCollections.id),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id),
    customerId: text("customer_id").notNull(),
    endToEndId: text("end_to_end_id").notNull(),
    // Cents.
    amount: integer("amount").notNull(),
    sequenceType: text("sequence_type").$type<SequenceType>().notNull(),
    collectionDate: text("collection_date").notNull(),
    mandateReference: text("mandate_reference").notNull(),
    mandateSignedOn: text("mandate_signed_on").notNull(),
    debtorIban: text("debtor_iban").notNull(),
    // The debtor as its file names it (JSON, pain008.ts Debtor): the buyer the invoice kept, or the
    // profile's legal name and address for an invoice issued before it kept one.
    debtor: text("debtor").notNull(),
    debtorBic: text("debtor_bic"),
    // The IBAN of the mandate's last collection when it has changed since (the amendment indicator).
    originalDebtorIban: text("original_debtor_iban"),
    state: text("state").$type<DebitState>().notNull(),
    returnReason: text("return_reason"),
    createdAt: text("created_at").notNull(),
    // The bank transaction whose credit settled it (null: not settled, or settled before this was kept).
    settledBy: text("settled_by"),
  },
  (t) => [
    uniqueIndex("direct_debits_end_to_end").on(t.endToEndId),
    index("direct_debits_collection").on(t.collectionId, t.sequenceType, t.endToEndId),
    index("direct_debits_invoice").on(t.invoiceId, t.createdAt),
    index("direct_debits_mandate").on(t.mandateReference, t.collectionDate),
  ],
);

export type DirectDebitRow = typeof directDebits.$inferSelect;

const collection = resource<DirectDebitCollectionRow>()(
  "DirectDebitCollection",
  (f) => ({
    id: f.column(z.string),
    type: f.from(
      () => z.literal("direct_debit_collection"),
      () => "direct_debit_collection" as const,
    ),
    collection_date: f.column(date),
    message_id: f.column(() =>
      z.string().register(z.globalRegistry, { description: "GrpHdr/MsgId of its pain.008 file." }),
    ),
    transactions_count: f.column(z.int),
    control_sum: f.from(money, (row) => formatCents(row.controlSum)),
    state: f.column(() => z.enum(COLLECTION_STATES)),
    created_at: f.column(dateTime),
  }),
  "The seller's collection of its customers' direct debits on one day, written as a pain.008 file.",
);

export const DirectDebitCollection = collection.schema;
export const toDirectDebitCollection = collection.show;

export const CreateDirectDebitCollection = namedRequest("CreateDirectDebitCollection", () =>
  requestBody({
    collection_date: date().check(z.refine(isDay, "must be a date, YYYY-MM-DD")),
  }),
);
