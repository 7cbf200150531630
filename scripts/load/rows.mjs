// The stored rows once the Worker stopped: no stray row, counters and sequences agree, numbers gapless.
import { queryD1 } from "../local-worker.mjs";
import { LEDGER_QUERIES, ledgerChecks, REMINDERS_QUERY } from "./ledger.mjs";
import { checkSeries } from "./verify.mjs";

const QUERIES = {
  orders:
    "SELECT id, entries_count, (SELECT count(*) FROM card_order_entries e WHERE e.order_id = card_orders.id) " +
    "AS entry_rows FROM card_orders",
  invoices: "SELECT number, cancellation_number FROM invoices",
  sequences: "SELECT series, year, last FROM number_sequences",
  entries: "SELECT count(*) AS n FROM card_order_entries",
  events: "SELECT count(*) AS n FROM events",
  // The totals kept by triggers (every list's total comes from list_counts) against the rows they count.
  counters: `SELECT c.list AS kind, c.scope AS customer_id, c.filter AS what, c.total, CASE c.list
    WHEN 'card_orders' THEN
      (SELECT count(*) FROM card_orders t WHERE t.customer_id = c.scope AND c.filter IN ('', t.state))
    WHEN 'invoices' THEN (SELECT count(*) FROM invoices t WHERE t.customer_id = c.scope AND c.filter IN ('', t.state))
    WHEN 'order_invoices' THEN
      (SELECT count(*) FROM invoices t WHERE t.order_id = c.scope AND c.filter IN ('', t.state))
    WHEN 'events' THEN (SELECT count(*) FROM events t WHERE t.customer_id = c.scope AND c.filter IN ('', t.type))
    WHEN 'devices' THEN (SELECT count(*) FROM notification_tokens t WHERE t.owner_id = c.scope)
    WHEN 'webhook_endpoints' THEN (SELECT count(*) FROM webhook_endpoints t WHERE t.customer_id = c.scope)
    WHEN 'bank_statements' THEN (SELECT count(*) FROM bank_statements)
    WHEN 'bank_transactions' THEN (SELECT count(*) FROM bank_transactions t WHERE c.filter IN ('', t.state))
    WHEN 'statement_transactions' THEN
      (SELECT count(*) FROM bank_transactions t WHERE t.bank_statement_id = c.scope AND c.filter IN ('', t.state))
    WHEN 'invoice_payments' THEN (SELECT count(*) FROM payments t WHERE t.invoice_id = c.scope)
    WHEN 'direct_debit_collections' THEN (SELECT count(*) FROM direct_debit_collections)
    WHEN 'invoice_deliveries' THEN (SELECT count(*) FROM invoice_deliveries t WHERE c.filter IN ('', t.state))
    WHEN 'deliveries_of_invoice' THEN
      (SELECT count(*) FROM invoice_deliveries t WHERE t.invoice_id = c.scope AND c.filter IN ('', t.state))
    WHEN 'reminders_of_invoice' THEN (SELECT count(*) FROM reminders t WHERE t.invoice_id = c.scope)
    WHEN 'all_invoices' THEN (SELECT count(*) FROM invoices t WHERE c.filter IN ('', t.state))
    WHEN 'dunning_invoices' THEN (SELECT count(*) FROM invoices t
      WHERE c.scope IN ('', t.customer_id) AND t.state = 'open' AND t.dunning_state = c.filter)
    WHEN 'open_due' THEN (SELECT count(*) FROM invoices t WHERE c.scope IN ('', t.customer_id) AND t.state = 'open'
      AND coalesce(t.gross_amount, 0) > t.allocated_amount AND t.due_on || '/' || t.dunning_state = c.filter)
    END AS rows FROM list_counts c`,
  ...LEDGER_QUERIES,
};

export async function readRows(worker) {
  const results = await queryD1(worker, Object.values(QUERIES).join(";\n"));
  const rows = Object.fromEntries(Object.keys(QUERIES).map((name, i) => [name, results[i]]));
  // docs/api.md part 18's reminders, where the service has them.
  if (rows.hasReminders[0].n > 0) [rows.reminders] = await queryD1(worker, REMINDERS_QUERY);
  return rows;
}

function checkRowCounts(world, state, rows, findings) {
  const orders = world.tenants.reduce((sum, tenant) => sum + tenant.orders.size, 0);
  const invoices = world.tenants.reduce((sum, tenant) => sum + tenant.invoices.size, 0);
  const entries = world.tenants.reduce(
    (sum, tenant) => sum + [...tenant.orders.values()].reduce((n, order) => n + order.entries.size, 0),
    0,
  );
  const events = [...state.events.values()].reduce((sum, list) => sum + list.length, 0);
  for (const [what, stored, made] of [
    ["card_orders", rows.orders.length, orders],
    ["invoices", rows.invoices.length, invoices],
    ["card_order_entries", rows.entries[0].n, entries],
    ["events", rows.events[0].n, events],
  ]) {
    if (stored > made) findings.duplicate(`${what} rows`, `${stored} stored, ${made} made by the run`);
    if (stored < made) findings.lose(`${what} rows`, `${stored} stored, ${made} made by the run`);
  }
  return (
    `rows: ${rows.orders.length} card_orders, ${rows.invoices.length} invoices, ` +
    `${rows.entries[0].n} card_order_entries, ${rows.events[0].n} events: ` +
    "exactly those the run made (events: those listed)"
  );
}

function checkCounters(rows, findings) {
  for (const order of rows.orders) {
    if (order.entries_count !== order.entry_rows)
      findings.misstate(
        `card_order ${order.id} entries_count`,
        `${order.entries_count}, ${order.entry_rows} entry rows`,
      );
  }
  const unknown = new Set();
  let uncounted = 0;
  for (const counter of rows.counters) {
    if (counter.rows === null) {
      unknown.add(counter.kind);
      uncounted++;
    } else if (counter.total !== counter.rows)
      findings.misstate(
        `list_counts ${counter.kind} ${counter.customer_id} ${counter.what || "(all)"}`,
        `total ${counter.total}, ${counter.rows} rows`,
      );
  }
  for (const { series, year, last } of rows.sequences) {
    const taken = rows.invoices.filter((invoice) =>
      (series === "INV" ? invoice.number : invoice.cancellation_number)?.startsWith(`${series}-${year}-`),
    ).length;
    if (taken !== last) findings.misstate(`number_sequences ${series} ${year}`, `last ${last}, ${taken} numbers given`);
  }
  return (
    `counters: entries_count = its entry rows for all ${rows.orders.length} card orders; ` +
    `${rows.counters.length - uncounted} kept list totals = their rows` +
    `${unknown.size ? ` (lists this verifier does not count: ${[...unknown].join(", ")})` : ""}; ` +
    "number_sequences.last = numbers given"
  );
}

function checkStoredNumbers(rows, findings) {
  const inv = checkSeries(
    findings,
    "INV",
    rows.invoices.map((invoice) => invoice.number),
  );
  const cn = checkSeries(
    findings,
    "CN",
    rows.invoices.map((invoice) => invoice.cancellation_number).filter((number) => number !== null),
  );
  return `numbers gapless and unique over the whole database: ${inv}; ${cn}`;
}

export const rowChecks = (world, state, rows) => [
  (f) => checkRowCounts(world, state, rows, f),
  (f) => checkCounters(rows, f),
  (f) => checkStoredNumbers(rows, f),
  ...ledgerChecks(world, rows),
];
