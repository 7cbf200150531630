import { and, eq, sql } from "drizzle-orm";
import type { Database } from "./client";
import { billingProfiles, invoiceDeliveries, type BillingProfileRow, type InvoiceRow } from "./schema";
import { formatFor } from "../domain/deliveries";
import { newId } from "../domain/ids";

// docs/api.md part 17: the deliveries written in the batch of what causes them (the API Worker's side;
// the jobs Worker sends them, src/deliveries/).

/** The automatic delivery of an invoice being issued to `profile`: `skipped` when the profile says "none". */
export function issuedInvoiceDelivery(orm: Database, invoice: InvoiceRow, profile: BillingProfileRow) {
  const state = profile.invoiceDelivery === "none" ? "skipped" : "pending";
  return orm.insert(invoiceDeliveries).values({
    id: newId(),
    invoiceId: invoice.id,
    customerId: invoice.customerId,
    document: "invoice",
    reminderId: null,
    channel: "email",
    recipient: profile.email!,
    format: formatFor(profile.invoiceFormat, profile.leitwegId),
    state,
    attempts: 0,
    messageId: null,
    error: null,
    createdAt: invoice.createdAt,
    sentAt: null,
    updatedAt: invoice.createdAt,
    cause: "invoice",
    attemptAfter: invoice.createdAt,
  });
}

/**
 * The automatic delivery of a cancelled invoice's credit note, to the billing profile as it is in the
 * cancel's batch (the address and format the buyer gives now; read there, so the request reads nothing
 * more). An invoice without documents (issued before e-invoices) gets none: it has no credit note to send.
 */
export function creditNoteDelivery(orm: Database, invoice: InvoiceRow, at: string) {
  const p = billingProfiles;
  const value = (v: string | number | null) => sql`${v}`;
  const format = sql`coalesce(${p.invoiceFormat}, CASE WHEN ${p.leitwegId} IS NULL THEN 'pdf' ELSE 'ubl' END)`;
  const state = sql`CASE WHEN ${p.invoiceDelivery} = 'none' THEN 'skipped' ELSE 'pending' END`;
  const documents = invoice.seller !== null && invoice.buyer !== null;
  return orm.insert(invoiceDeliveries).select((qb) =>
    qb
      .select({
        id: value(newId()).as("id"),
        invoiceId: value(invoice.id).as("invoice_id"),
        customerId: value(invoice.customerId).as("customer_id"),
        document: value("credit_note").as("document"),
        reminderId: sql`NULL`.as("reminder_id"),
        channel: value("email").as("channel"),
        recipient: sql`${p.email}`.as("recipient"),
        format: format.as("format"),
        state: state.as("state"),
        attempts: value(0).as("attempts"),
        messageId: sql`NULL`.as("message_id"),
        error: sql`NULL`.as("error"),
        createdAt: value(at).as("created_at"),
        sentAt: sql`NULL`.as("sent_at"),
        updatedAt: value(at).as("updated_at"),
        cause: value("credit_note").as("cause"),
        attemptAfter: value(at).as("attempt_after"),
      })
      .from(p)
      .where(and(eq(p.customerId, invoice.customerId), sql`${p.email} IS NOT NULL`, sql`${documents ? 1 : 0} = 1`)),
  );
}
