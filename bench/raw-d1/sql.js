// The statements the service sends for page 1 of a card-order list (src/db/card-orders.ts through
// src/pagination/keyset.ts: the page by number, its LIMIT computed from the kept total, and the kept
// total from list_counts), copied verbatim with the values it binds. bench/run.mjs regenerates both
// from the service and stops if they differ.
export const PAGE_SQL =
  'SELECT "card_orders"."id", "card_orders"."customer_id", "card_orders"."state", "card_orders"."created_at", "card_orders"."updated_at", "card_orders"."submitted_at", "card_orders"."production_started_at", "card_orders"."delivered_at", "card_orders"."description", "card_orders"."invoice_reference", "card_orders"."cost_center", "card_orders"."payment_method", "card_orders"."voucher_category", "card_orders"."invoice_id", "card_orders"."invoice_number", "card_orders"."production_invoice_id", "card_orders"."production_invoice_number", "card_orders"."shipping_invoice_id", "card_orders"."shipping_invoice_number", "card_orders"."entries_count", "card_orders"."entries_amount" FROM "card_orders" WHERE "card_orders"."customer_id" = ? ORDER BY "card_orders"."created_at" DESC, "card_orders"."id" DESC LIMIT CASE WHEN ? < coalesce(coalesce((SELECT "list_counts"."total" FROM "list_counts" WHERE "list_counts"."list" = ? AND "list_counts"."scope" = ? AND "list_counts"."filter" = ?), 0), 0) THEN ? ELSE 0 END OFFSET ?';
export const TOTAL_SQL =
  'SELECT coalesce((SELECT "list_counts"."total" FROM "list_counts" WHERE "list_counts"."list" = ? AND "list_counts"."scope" = ? AND "list_counts"."filter" = ?), 0) AS "total"';

/** Page 1 of `customer`'s orders, unfiltered (filter ""), `pageSize` rows from offset 0. */
export const pageParams = (customer, pageSize) => [customer, 0, "card_orders", customer, "", pageSize, 0];
export const totalParams = (customer) => ["card_orders", customer, ""];

/** The baseline's statements for one customer, in the form bench/service-sql.mjs reports the service's. */
export const rawListStatements = ({ customer, pageSize }) => [
  { sql: PAGE_SQL, params: pageParams(customer, pageSize) },
  { sql: TOTAL_SQL, params: totalParams(customer) },
];
