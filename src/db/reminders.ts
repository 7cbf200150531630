import { and, eq, sql } from "drizzle-orm";
import type { PageRequest } from "../pagination/query";
import { reminders, type ReminderRow } from "../schemas/reminder";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, one, param, preparer } from "./compiled";
import { invoiceListTotal, pageReads, readPage } from "./keyset";
import { billingProfiles, invoiceDeliveries, invoices, keptLists } from "./schema";

// docs/api.md part 18: an invoice's reminders (oldest first; the total kept by drizzle/0015's trigger),
// one by id, where its PDF is kept, and its delivery, written in the run's batch.

const r = reminders;

const ofInvoice = lazily(() =>
  pageReads<ReminderRow>({
    table: r,
    from: { owner: invoices, on: eq(r.invoiceId, invoices.id) },
    where: and(eq(invoices.id, param("invoice")), eq(invoices.customerId, param("customer")))!,
    seek: { where: eq(r.invoiceId, param("invoice")) },
    total: invoiceListTotal(keptLists.remindersOfInvoice),
    key: [r.createdAt, r.id],
    ascending: true,
  }),
);

/** One page of the customer's invoice's reminders, oldest first; undefined total: no such invoice. */
export const listRemindersOf = (db: RequestDatabase, customerId: string, invoiceId: string, page: PageRequest) =>
  readPage(db, ofInvoice(), { customer: customerId, invoice: invoiceId }, page);

const byId = lazily(() =>
  compile<ReminderRow>(
    preparer()
      .select()
      .from(r)
      .where(eq(r.id, param("id")))
      .prepare(),
  ),
);

/** Reminder `id`, whoever's (the handler checks its customer), for a route's load step. */
export const reminderRead = (id: string) => one(byId(), { id });

/** Where a reminder's PDF is kept (R2, DOCUMENTS), with its customer as the owner. */
export const reminderDocumentKey = (id: string) => `reminders/${id}.pdf`;

/** The attachment's name (docs/api.md part 18): `<invoice number>-M<level>.pdf`. */
export const reminderFileName = (row: Pick<ReminderRow, "invoiceNumber" | "level">) =>
  `${row.invoiceNumber}-M${row.level}.pdf`;

export const insertReminder = (orm: Database, row: ReminderRow) => orm.insert(r).values(row);

/**
 * The reminder's delivery (docs/api.md part 17): a PDF whatever the profile's invoice_format, to the
 * billing profile's e-mail as it is in the run's batch, skipped when its invoice_delivery is none; none
 * without an address. Its cause names the level: never two deliveries of one reminder.
 */
export function reminderDelivery(orm: Database, row: ReminderRow, deliveryId: string) {
  const p = billingProfiles;
  const value = (v: string | number | null) => sql`${v}`;
  const state = sql`CASE WHEN ${p.invoiceDelivery} = 'none' THEN 'skipped' ELSE 'pending' END`;
  return orm.insert(invoiceDeliveries).select((qb) =>
    qb
      .select({
        id: value(deliveryId).as("id"),
        invoiceId: value(row.invoiceId).as("invoice_id"),
        customerId: value(row.customerId).as("customer_id"),
        document: value("reminder").as("document"),
        reminderId: value(row.id).as("reminder_id"),
        channel: value("email").as("channel"),
        recipient: sql`${p.email}`.as("recipient"),
        format: value("pdf").as("format"),
        state: state.as("state"),
        attempts: value(0).as("attempts"),
        messageId: sql`NULL`.as("message_id"),
        error: sql`NULL`.as("error"),
        createdAt: value(row.createdAt).as("created_at"),
        sentAt: sql`NULL`.as("sent_at"),
        updatedAt: value(row.createdAt).as("updated_at"),
        cause: value(`reminder:${row.level}`).as("cause"),
        attemptAfter: value(row.createdAt).as("attempt_after"),
      })
      .from(p)
      .where(and(eq(p.customerId, row.customerId), sql`${p.email} IS NOT NULL`)),
  );
}
