// The data both databases start from: one SQL file, executed on the service's D1 and on the raw-d1
// baseline's before either Worker starts. Inserting with SQL rather than through the API is what
// makes 10,000+ orders take a second; the count triggers still run, so `total_entries` is right.
import { writeFileSync } from "node:fs";

const customerName = (k) => `bench-customer-${k}`;

// Ids must look like the service's (lowercase UUIDs), or GET /card_orders/{id} answers 404 unread.
const orderId = (k, i) => `${k.toString(16).padStart(8, "0")}-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

/** SQL choosing values[n % values.length]. */
const cycle = (n, values) =>
  `CASE ${n} % ${values.length} ${values.map((v, i) => `WHEN ${i} THEN '${v}'`).join(" ")} END`;

// Order i of customer k is created i minutes after 2025-01-01 and is in state STATES[i % 5], with the
// timestamps that state implies; the newest order is i = count - 1.
function insertOrders(k, count) {
  return `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < ${count - 1}),
  o AS (SELECT i, i % 5 AS s, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' minutes') AS at FROM seq)
INSERT INTO card_orders (id, customer_id, state, created_at, updated_at, submitted_at, production_started_at,
  delivered_at, description, invoice_reference, cost_center, payment_method, voucher_category)
SELECT printf('%08x-0000-4000-8000-%012x', ${k}, i), '${customerName(k)}',
  ${cycle("s", ["draft", "submitted", "in_production", "delivered", "cancelled"])}, at, at,
  CASE WHEN s IN (1, 2, 3) THEN at END, CASE WHEN s IN (2, 3) THEN at END, CASE WHEN s = 3 THEN at END,
  'Vouchers for team ' || (i % 40), CASE WHEN i % 3 = 0 THEN 'PO-' || i END, 'CC-' || (100 + i % 7),
  ${cycle("i", ["bank_transfer", "direct_debit"])}, ${cycle("i", ["mixed", "meal", "gift"])}
FROM o;`;
}

/**
 * Writes the seed SQL and says what it holds.
 * @returns {{ orders: number, customers: number, listCustomer: string, newestOrderId: string }}
 */
export function writeSeed(path, { customers = 4, ordersPerCustomer = 3000 } = {}) {
  const statements = [];
  for (let k = 1; k <= customers; k++) statements.push(insertOrders(k, ordersPerCustomer));
  writeFileSync(path, statements.join("\n") + "\n");
  return {
    orders: customers * ordersPerCustomer,
    customers,
    listCustomer: customerName(1),
    newestOrderId: orderId(1, ordersPerCustomer - 1),
  };
}
