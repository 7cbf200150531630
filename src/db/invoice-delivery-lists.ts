import { and, eq, sql, type SQL } from "drizzle-orm";
import type { DeliveryState } from "../domain/deliveries";
import type { PageRequest } from "../pagination/query";
import type { RequestDatabase } from "./client";
import { lazily, param } from "./compiled";
import { invoiceListTotal, keptTotal, pageReads, readPage } from "./keyset";
import { keptLists, invoiceDeliveries, invoices, type InvoiceDeliveryRow } from "./schema";

// docs/api.md part 17: the deliveries of a customer's invoice (oldest first), and every delivery for the
// accounts department (newest first, by state and invoice). Totals kept by drizzle/0011_deliveries.sql.

const d = invoiceDeliveries;

// Joined through the invoice, the customer's or nothing; a cursor was signed for this customer's list.
const ofInvoice = lazily(() =>
  pageReads<InvoiceDeliveryRow>({
    table: d,
    from: { owner: invoices, on: eq(d.invoiceId, invoices.id) },
    where: and(eq(invoices.id, param("invoice")), eq(invoices.customerId, param("customer")))!,
    seek: { where: eq(d.invoiceId, param("invoice")) },
    total: invoiceListTotal(keptLists.deliveriesOfInvoice),
    key: [d.createdAt, d.id],
    ascending: true,
  }),
);

/** One page of the customer's invoice's deliveries, oldest first; undefined total: no such invoice. */
export const listDeliveriesOf = (db: RequestDatabase, customerId: string, invoiceId: string, page: PageRequest) =>
  readPage(db, ofInvoice(), { customer: customerId, invoice: invoiceId }, page);

function allReads(byState: boolean, byInvoice: boolean) {
  const where: SQL =
    and(byInvoice ? eq(d.invoiceId, param("invoice")) : undefined, byState ? eq(d.state, param("state")) : undefined) ??
    sql`1 = 1`;
  return pageReads<InvoiceDeliveryRow>({
    table: d,
    where,
    total: byInvoice
      ? keptTotal(keptLists.deliveriesOfInvoice, param("invoice"), param("filter"))
      : keptTotal(keptLists.invoiceDeliveries, "", param("filter")),
    key: [d.createdAt, d.id],
  });
}

const shapes = [false, true].flatMap((byState) =>
  [false, true].map((byInvoice) => lazily(() => allReads(byState, byInvoice))),
);

/** One page of every delivery, newest first, filtered by state and invoice, and the total. */
export function listAllDeliveries(
  db: RequestDatabase,
  { state, invoiceId }: { state?: DeliveryState; invoiceId?: string },
  page: PageRequest,
) {
  const reads = shapes[(state === undefined ? 0 : 2) + (invoiceId === undefined ? 0 : 1)]!();
  return readPage(db, reads, { state, invoice: invoiceId, filter: state ?? "" }, page);
}
