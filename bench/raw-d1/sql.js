// The statements the service sends for page 1 of a card-order list (src/db/card-orders.ts through
// src/db/keyset.ts: page 1, one row more than the page to see whether a next page exists,
// and the kept total from list_counts), copied verbatim with the values it binds. bench/run.mjs
// regenerates both from the service and stops if they differ.
export const PAGE_SQL =
  'SELECT "card_orders"."id" AS "id", "card_orders"."customer_id" AS "customerId", ' +
  '"card_orders"."state" AS "state", "card_orders"."created_at" AS "createdAt", ' +
  '"card_orders"."updated_at" AS "updatedAt", "card_orders"."submitted_at" AS "submittedAt", ' +
  '"card_orders"."production_started_at" AS "productionStartedAt", "card_orders"."delivered_at" AS "deliveredAt", ' +
  '"card_orders"."description" AS "description", "card_orders"."invoice_reference" AS "invoiceReference", ' +
  '"card_orders"."cost_center" AS "costCenter", "card_orders"."payment_method" AS "paymentMethod", ' +
  '"card_orders"."voucher_category" AS "voucherCategory", "card_orders"."invoice_id" AS "invoiceId", ' +
  '"card_orders"."invoice_number" AS "invoiceNumber", ' +
  '"card_orders"."production_invoice_id" AS "productionInvoiceId", ' +
  '"card_orders"."production_invoice_number" AS "productionInvoiceNumber", ' +
  '"card_orders"."shipping_invoice_id" AS "shippingInvoiceId", ' +
  '"card_orders"."shipping_invoice_number" AS "shippingInvoiceNumber", ' +
  '"card_orders"."entries_count" AS "entriesCount", "card_orders"."entries_amount" AS "entriesAmount" ' +
  'FROM "card_orders" WHERE "card_orders"."customer_id" = ? ' +
  'ORDER BY "card_orders"."created_at" DESC, "card_orders"."id" DESC LIMIT ?';
export const TOTAL_SQL =
  'SELECT coalesce((SELECT "list_counts"."total" FROM "list_counts" WHERE "list_counts"."list" = ? AND ' +
  '"list_counts"."scope" = ? AND "list_counts"."filter" = ?), 0) AS "total"';

/** Page 1 of `customer`'s orders, unfiltered: `pageSize` rows and the one read ahead. */
export const pageParams = (customer, pageSize) => [customer, pageSize + 1];
export const totalParams = (customer) => ["card_orders", customer, ""];

/** The baseline's statements for one customer, in the form bench/service-sql.mjs reports the service's. */
export const rawListStatements = ({ customer, pageSize }) => [
  { sql: PAGE_SQL, params: pageParams(customer, pageSize) },
  { sql: TOTAL_SQL, params: totalParams(customer) },
];
