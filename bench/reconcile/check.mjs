// What the service stored of the bench's statement, against what the plan (plan.mjs) says docs/api.md
// part 15's rules make of each transaction. Read from the local D1 after the Workers stopped
// (scripts/local-worker.mjs queryD1): what is stored, whatever the API shows.

/** The SQL of the stored rows: the statement, its transactions with their payments, the invoices. */
export const storedSql = (statementId) => {
  const id = statementId.replaceAll("'", "''");
  return [
    `SELECT state, error, transactions_count, matched_count, unmatched_count, duplicate_count, handled,
       created_at, processed_at FROM bank_statements WHERE id = '${id}'`,
    `SELECT t.position, t.state, t.amount, t.allocated_amount, t.customer_id, t.created_at,
       (SELECT json_group_array(json_array(p.invoice_number, p.amount, p.method, p.customer_id))
          FROM payments p WHERE p.bank_transaction_id = t.id) AS payments
     FROM bank_transactions t WHERE t.bank_statement_id = '${id}' ORDER BY t.position`,
    "SELECT number, state, gross_amount, allocated_amount, paid_at FROM invoices",
    "SELECT count(*) AS n FROM payments WHERE bank_transaction_id IS NULL",
    "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY type",
  ].join(";\n");
};

const key = (allocations) =>
  allocations
    .map(({ number, amount }) => `${number}=${amount}`)
    .sort()
    .join(" ");

/**
 * `wrong`: transactions whose payments differ from the plan's or are missing; `unmatchedReferenced`:
 * those naming a known open invoice validly, stored `unmatched`; and every other disagreement found.
 */
export function compare(plan, [statementRows, transactionRows, invoiceRows, manualRows, eventRows]) {
  const problems = {};
  const note = (kind, text) => {
    const list = (problems[kind] ??= []);
    list.count = (list.count ?? 0) + 1;
    if (list.length < 5) list.push(text);
  };
  const byPosition = new Map(transactionRows.map((row) => [row.position, row]));
  let wrong = 0;
  let unmatchedReferenced = 0;
  const states = {};
  const wrongByStyle = {};
  for (const tx of plan.transactions) {
    const row = byPosition.get(tx.position);
    if (!row) {
      wrong += 1;
      note("missing", `position ${tx.position} (${tx.style}) was not stored`);
      continue;
    }
    states[row.state] = (states[row.state] ?? 0) + 1;
    const payments = JSON.parse(row.payments).map(([number, amount, method, customer]) => ({
      number,
      amount,
      method,
      customer,
    }));
    const [stored, expected] = [key(payments), key(tx.expected)];
    if (stored !== expected) {
      wrong += 1;
      wrongByStyle[tx.style] = (wrongByStyle[tx.style] ?? 0) + 1;
      note("wrong", `position ${tx.position} (${tx.style}): paid [${stored}], expected [${expected}]`);
    }
    if (tx.referencedOpen && row.state === "unmatched") {
      unmatchedReferenced += 1;
      note("unmatched_referenced", `position ${tx.position} (${tx.style}) named ${tx.named.join(", ")}`);
    }
    if (row.state !== tx.expectedState) note("state", `position ${tx.position}: ${row.state}, not ${tx.expectedState}`);
    if (row.amount !== tx.amount) note("amount", `position ${tx.position}: ${row.amount}, not ${tx.amount}`);
    const allocated = payments.reduce((sum, p) => sum + p.amount, 0);
    if (row.allocated_amount !== allocated)
      note("allocated", `position ${tx.position}: allocated_amount ${row.allocated_amount}, payments ${allocated}`);
    if (payments.some((p) => p.method !== "bank_transfer" || p.customer !== tx.customerId))
      note("payment", `position ${tx.position}: ${JSON.stringify(payments)}`);
    if ((row.customer_id ?? null) !== (tx.expected.length > 0 ? tx.customerId : null))
      note("customer", `position ${tx.position}: customer ${row.customer_id}, not ${tx.customerId}`);
  }
  if (transactionRows.length !== plan.transactions.length)
    note("count", `${transactionRows.length} transactions stored, ${plan.transactions.length} in the file`);

  const invoices = new Map(invoiceRows.map((row) => [row.number, row]));
  let invoicesWrong = 0;
  for (const planned of plan.finalInvoices) {
    const row = invoices.get(planned.number);
    if (!row || row.state !== planned.state || row.allocated_amount !== planned.allocated) {
      invoicesWrong += 1;
      note(
        "invoice",
        `${planned.number}: ${row ? `${row.state}, ${row.allocated_amount} allocated` : "missing"}; ` +
          `expected ${planned.state}, ${planned.allocated} of ${planned.gross}`,
      );
    } else if ((row.state === "paid") !== (row.paid_at !== null))
      note("invoice", `${planned.number}: paid_at ${row.paid_at}`);
  }
  if (manualRows[0].n !== 0) note("manual", `${manualRows[0].n} payments without a bank transaction`);

  const statement = statementRows[0];
  const expectedMatched = plan.transactions.filter((tx) => tx.expectedState === "matched").length;
  if (
    statement?.state !== "processed" ||
    statement.matched_count !== expectedMatched ||
    statement.unmatched_count !== plan.transactions.length - expectedMatched ||
    statement.duplicate_count !== 0
  )
    note("statement", JSON.stringify(statement));
  const events = Object.fromEntries(eventRows.map((row) => [row.type, row.n]));
  return { wrong, unmatchedReferenced, invoicesWrong, states, wrongByStyle, problems, statement, events };
}
