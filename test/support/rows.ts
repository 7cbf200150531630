import type { CardOrderRow } from "../../src/db/schema";

/**
 * A draft card order's row as the service stores it, `fields` over it: for the tests that write rows
 * straight into D1 (test/db-queries.test.ts, test/guards.test.ts). Typed whole before the spread, so
 * that a column added to the table is named here, once, as missing.
 */
export function draftOrderRow(customerId: string, fields: Partial<CardOrderRow> = {}): CardOrderRow {
  const at = "2026-01-01T00:00:00.000Z";
  const row: CardOrderRow = {
    id: crypto.randomUUID(),
    customerId,
    state: "draft",
    createdAt: at,
    updatedAt: at,
    submittedAt: null,
    productionStartedAt: null,
    deliveredAt: null,
    description: null,
    invoiceReference: null,
    costCenter: null,
    paymentMethod: "bank_transfer",
    voucherCategory: "gift",
    invoiceId: null,
    invoiceNumber: null,
    productionInvoiceId: null,
    productionInvoiceNumber: null,
    shippingInvoiceId: null,
    shippingInvoiceNumber: null,
    entriesCount: 0,
    entriesAmount: 0,
  };
  return { ...row, ...fields };
}
