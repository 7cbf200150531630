// Open invoices written straight into a local D1 before the Workers start (scripts/local-worker.mjs,
// option `seed`), for the runs that need thousands of them: the reconciliation bench and the direct
// debit dev-server test. Each invoice gets the submitted card order it bills (the foreign key) and is
// stored as src/writes/invoices.ts issues one: state `open`, nothing allocated, gross = net (vouchers,
// 0 % VAT). The count triggers run, so the lists' totals are right; the INV sequence of `year` stands
// at the last number, as if they had been issued.

const quote = (value) => (value === null ? "NULL" : `'${String(value).replaceAll("'", "''")}'`);

/** Rows in INSERTs of 100 (each statement far below D1's 100 KB). */
function inserts(table, columns, rows) {
  const statements = [];
  for (let i = 0; i < rows.length; i += 100)
    statements.push(
      `INSERT INTO ${table} (${columns.join(", ")}) VALUES\n${rows
        .slice(i, i + 100)
        .map((row) => `(${columns.map((column) => quote(row[column] ?? null)).join(", ")})`)
        .join(",\n")};`,
    );
  return statements;
}

const ORDER_COLUMNS = [
  "id",
  "customer_id",
  "state",
  "created_at",
  "updated_at",
  "submitted_at",
  "description",
  "payment_method",
  "voucher_category",
  "invoice_id",
  "invoice_number",
];
const INVOICE_COLUMNS = [
  "id",
  "customer_id",
  "number",
  "state",
  "created_at",
  "updated_at",
  "booked_on",
  "creditor",
  "due_on",
  "order_id",
  "order_state",
  "payment_method",
  "kind",
  "net_amount",
  "gross_amount",
  "recipient",
  "allocated_amount",
  "buyer",
];

/**
 * The SQL for `invoices`, each { id, orderId, customerId, number, cents, createdAt, dueOn, buyer? }
 * (buyer: the invoice's buyer as stored, a direct debit's mandate), all of `paymentMethod`, issued
 * by `creditor`, in `year`.
 */
export function openInvoicesSql(invoices, { year, creditor, paymentMethod, description }) {
  const orders = invoices.map((i) => ({
    id: i.orderId,
    customer_id: i.customerId,
    state: "submitted",
    created_at: i.createdAt,
    updated_at: i.createdAt,
    submitted_at: i.createdAt,
    description,
    payment_method: paymentMethod,
    voucher_category: "meal",
    invoice_id: i.id,
    invoice_number: i.number,
  }));
  const rows = invoices.map((i) => ({
    id: i.id,
    customer_id: i.customerId,
    number: i.number,
    state: "open",
    created_at: i.createdAt,
    updated_at: i.createdAt,
    booked_on: i.createdAt.slice(0, 10),
    creditor,
    due_on: i.dueOn,
    order_id: i.orderId,
    order_state: "submitted",
    payment_method: paymentMethod,
    kind: "voucher",
    net_amount: i.cents,
    gross_amount: i.cents,
    recipient: i.customerId,
    allocated_amount: 0,
    buyer: i.buyer === undefined ? null : JSON.stringify(i.buyer),
  }));
  return [
    ...inserts("card_orders", ORDER_COLUMNS, orders),
    ...inserts("invoices", INVOICE_COLUMNS, rows),
    `INSERT INTO number_sequences (series, year, last) VALUES ('INV', ${year}, ${invoices.length});`,
  ].join("\n");
}
