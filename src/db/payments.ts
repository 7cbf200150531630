import { and, eq } from "drizzle-orm";
import type { PageRequest } from "../pagination/query";
import type { RequestDatabase } from "./client";
import { invoiceListTotal, pageReads, readPage } from "./keyset";
import { invoices, keptLists, payments, type PaymentRow } from "./schema";
import { lazily, param } from "./compiled";

// docs/api.md part 15: an invoice's payments, oldest first, for the invoice's customer only.

// By page number joined through the invoice, the customer's or nothing; a cursor was signed for this
// customer's list, so its pages need no join. The total is counted per invoice, when it is theirs.
const listReads = lazily(() =>
  pageReads<PaymentRow>({
    table: payments,
    from: { owner: invoices, on: eq(payments.invoiceId, invoices.id) },
    where: and(eq(invoices.id, param("invoice")), eq(invoices.customerId, param("customer")))!,
    seek: { where: eq(payments.invoiceId, param("invoice")) },
    total: invoiceListTotal(keptLists.invoicePayments),
    key: [payments.createdAt, payments.id],
    ascending: true,
  }),
);

/** One page of the customer's invoice's payments, oldest first; undefined total: no such invoice. */
export const listPayments = (db: RequestDatabase, customerId: string, invoiceId: string, page: PageRequest) =>
  readPage(db, listReads(), { customer: customerId, invoice: invoiceId }, page);
