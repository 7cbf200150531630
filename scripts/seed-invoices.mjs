// Rows written straight into a local D1 before the Workers start (startWorker's `seed`), for runs that
// need thousands: SQL takes seconds where the API would take minutes; drizzle's statements for src/'s
// tables, the count triggers running.
import { writeFileSync } from "node:fs";
import { importSource } from "./import-source.mjs";

const { cardOrders, invoices, numberSequences, drizzle } = await importSource(
  [
    'export { cardOrders } from "./src/schemas/card-order";',
    'export { invoices } from "./src/schemas/invoice";',
    'export { numberSequences } from "./src/db/schema";',
    'export { drizzle } from "drizzle-orm/sqlite-proxy";',
  ].join("\n"),
);
const db = drizzle(async () => ({ rows: [] }));

const literal = (value) =>
  value === null || value === undefined
    ? "NULL"
    : typeof value === "number"
      ? String(value)
      : `'${String(value).replaceAll("'", "''")}'`;

/** `rows` of `table` as INSERTs of 100 (each statement far below D1's 100 KB), the values written out. */
function inserts(table, rows) {
  const statements = [];
  for (let i = 0; i < rows.length; i += 100) {
    const { sql, params } = db
      .insert(table)
      .values(rows.slice(i, i + 100))
      .toSQL();
    statements.push(`${sql.split("?").reduce((text, part, j) => text + literal(params[j - 1]) + part)};`);
  }
  return statements;
}

// --- The card orders of `npm run bench` (bench/run.mjs).

const customerName = (k) => `bench-customer-${k}`;
// Ids must look like the service's (lowercase UUIDs), or GET /card_orders/{id} answers 404 unread.
const orderId = (k, i) => `${k.toString(16).padStart(8, "0")}-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
const STATES = ["draft", "submitted", "in_production", "delivered", "cancelled"];

/**
 * The bench's card orders: customer k's order i made i minutes after 2025-01-01, in state STATES[i % 5].
 * @returns {{ orders: number, customers: number, listCustomer: string, newestOrderId: string }}
 */
export function writeCardOrderSeed(path, { customers = 4, ordersPerCustomer = 3000 } = {}) {
  const rows = [];
  for (let k = 1; k <= customers; k++)
    for (let i = 0; i < ordersPerCustomer; i++) {
      const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
      const s = i % 5;
      rows.push({
        id: orderId(k, i),
        customerId: customerName(k),
        state: STATES[s],
        createdAt: at,
        updatedAt: at,
        submittedAt: s >= 1 && s <= 3 ? at : null,
        productionStartedAt: s === 2 || s === 3 ? at : null,
        deliveredAt: s === 3 ? at : null,
        description: `Vouchers for team ${i % 40}`,
        invoiceReference: i % 3 === 0 ? `PO-${i}` : null,
        costCenter: `CC-${100 + (i % 7)}`,
        paymentMethod: ["bank_transfer", "direct_debit"][i % 2],
        voucherCategory: ["mixed", "meal", "gift"][i % 3],
      });
    }
  writeFileSync(path, `${inserts(cardOrders, rows).join("\n")}\n`);
  return {
    orders: customers * ordersPerCustomer,
    customers,
    listCustomer: customerName(1),
    newestOrderId: orderId(1, ordersPerCustomer - 1),
  };
}

// --- Open invoices (bench/reconcile.mjs, test/dev-server/direct-debit.test.mjs).

/**
 * The SQL for `invoices` ({ id, orderId, customerId, number, cents, createdAt, dueOn, buyer? }), stored
 * as src/writes/invoices.ts issues them (open, gross = net), each with its card order; INV sequence set.
 */
export function openInvoicesSql(list, { year, creditor, paymentMethod, description }) {
  const orders = list.map((i) => ({
    id: i.orderId,
    customerId: i.customerId,
    state: "submitted",
    createdAt: i.createdAt,
    updatedAt: i.createdAt,
    submittedAt: i.createdAt,
    description,
    paymentMethod,
    voucherCategory: "meal",
    invoiceId: i.id,
    invoiceNumber: i.number,
  }));
  const rows = list.map((i) => ({
    id: i.id,
    customerId: i.customerId,
    number: i.number,
    state: "open",
    createdAt: i.createdAt,
    updatedAt: i.createdAt,
    bookedOn: i.createdAt.slice(0, 10),
    creditor,
    dueOn: i.dueOn,
    orderId: i.orderId,
    orderState: "submitted",
    paymentMethod,
    kind: "voucher",
    netAmount: i.cents,
    grossAmount: i.cents,
    recipient: i.customerId,
    allocatedAmount: 0,
    buyer: i.buyer === undefined ? null : JSON.stringify(i.buyer),
  }));
  return [
    ...inserts(cardOrders, orders),
    ...inserts(invoices, rows),
    ...inserts(numberSequences, [{ series: "INV", year, last: list.length }]),
  ].join("\n");
}
