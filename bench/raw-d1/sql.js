// The statements the service sends for a page of a card-order list (src/db/card-orders.ts), copied
// verbatim. bench/run.mjs regenerates them from the service and stops if they differ.
export const PAGE_SQL =
  'select "id", "customer_id", "state", "created_at", "updated_at", "submitted_at", "production_started_at", "delivered_at", "description", "invoice_reference", "cost_center", "payment_method", "voucher_category", "invoice_id", "invoice_number" from "card_orders" where "card_orders"."customer_id" = ? order by "card_orders"."created_at" desc, "card_orders"."id" desc limit ? offset ?';
export const TOTAL_SQL = 'select coalesce(sum("total"), 0) as "total" from "card_order_counts" where "card_order_counts"."customer_id" = ?';
