import { and, asc, eq, sql } from "drizzle-orm";
import type { VatCategory } from "../domain/einvoice";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, preparer, param, queryBuilder as qb } from "./compiled";
import { pageReads, readPage } from "./keyset";
import { cardOrderEntries, invoiceLines, invoices, type InvoiceLineRow } from "./schema";

export function insertLine(orm: Database, row: InvoiceLineRow) {
  return orm.insert(invoiceLines).values(row);
}

/**
 * A voucher invoice's lines (docs/api.md parts 13 and 14): one per entry of the order, oldest first,
 * `<card> <card holder name>` in the invoice's language, copied from the entries in one statement of
 * the invoice's batch, however many there are.
 */
export function insertVoucherLines(
  orm: Database,
  invoiceId: string,
  orderId: string,
  vat: { category: VatCategory; percent: string },
  card: string,
) {
  const e = cardOrderEntries;
  return orm.insert(invoiceLines).select(
    qb
      .select({
        invoiceId: sql`${invoiceId}`.as("invoice_id"),
        position: sql<number>`row_number() OVER (ORDER BY ${e.createdAt}, ${e.id})`.as("position"),
        description: sql<string>`${`${card} `} || ${e.cardHolderName}`.as("description"),
        quantity: sql<number>`1`.as("quantity"),
        unitPrice: sql<number>`${e.amount}`.as("unit_price"),
        netAmount: sql<number>`${e.amount}`.as("net_amount"),
        vatCategory: sql<string>`${vat.category}`.as("vat_category"),
        vatPercent: sql<string>`${vat.percent}`.as("vat_percent"),
        cardOrderEntryId: sql<string>`${e.id}`.as("card_order_entry_id"),
      })
      .from(e)
      .where(eq(e.orderId, orderId))
      .orderBy(asc(e.createdAt), asc(e.id)),
  );
}

// Pages of an invoice's lines, ascending by position on the primary key (invoice_id, position). By
// page number joined through the invoice, the customer's or nothing; a cursor was signed for this
// customer's list, so its pages need no join. The total is the invoice's lines_count.
const lineReads = lazily(() =>
  pageReads<InvoiceLineRow>({
    table: invoiceLines,
    from: { owner: invoices, on: eq(invoiceLines.invoiceId, invoices.id) },
    where: and(eq(invoices.id, param("invoice")), eq(invoices.customerId, param("customer")))!,
    seek: { where: eq(invoiceLines.invoiceId, param("invoice")) },
    total: sql`(SELECT ${invoices.linesCount} FROM ${invoices} WHERE ${invoices.id} = ${param("invoice")} AND ${
      invoices.customerId
    } = ${param("customer")})`,
    key: [invoiceLines.invoiceId, invoiceLines.position],
    ascending: true,
  }),
);

/** One page of the customer's invoice's lines and their total (undefined: no such invoice), one round trip. */
export const listLines = (db: RequestDatabase, customerId: string, invoiceId: string, page: PageRequest) =>
  readPage(db, lineReads(), { customer: customerId, invoice: invoiceId }, page);

/** An invoice's lines in position order (its documents show them all: at most 500). */
export const linesOf = lazily(() =>
  compile<InvoiceLineRow>(
    preparer()
      .select()
      .from(invoiceLines)
      .where(eq(invoiceLines.invoiceId, param("invoice")))
      .orderBy(asc(invoiceLines.position))
      .prepare(),
  ),
);
