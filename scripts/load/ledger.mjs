// The money in the stored rows (docs/api.md parts 15 to 18), after the Worker stopped: each planted or
// answered step once with its event, nothing over-allocated or misrouted, every delivery and reminder
// sent or terminal with its event.
import { rfReference } from "../../test/support/check-digits.mjs";

export const LEDGER_QUERIES = {
  ledgerInvoices:
    "SELECT id, customer_id, number, state, payment_method, gross_amount, allocated_amount, charges_amount FROM invoices",
  payments:
    "SELECT id, invoice_id, amount, method, bank_transaction_id, returned_at IS NOT NULL AS returned FROM payments",
  transactions:
    "SELECT id, credit_debit, amount, allocated_amount, state, end_to_end_id, " +
    "coalesce(creditor_reference, '') || ' ' || coalesce(remittance_information, '') || ' ' || " +
    "coalesce(end_to_end_id, '') AS text, counterparty_iban FROM bank_transactions",
  statements: "SELECT id, state, error FROM bank_statements",
  deliveries: "SELECT id, invoice_id, document, reminder_id, state, cause FROM invoice_deliveries",
  // The events checkEvents (verify.mjs) leaves to these checks, by what they are about.
  moneyEvents:
    "SELECT id, type, coalesce(json_extract(data, '$.invoice_id'), json_extract(data, '$.id')) AS invoice, " +
    "json_extract(data, '$.id') AS subject FROM events WHERE type LIKE 'payment.%' OR type LIKE 'invoice_delivery.%' " +
    "OR type LIKE 'reminder.%' OR type LIKE 'dunning.%' OR type = 'invoice.overdue'",
  hasReminders: "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'reminders'",
};
export const REMINDERS_QUERY = "SELECT id, invoice_id, level FROM reminders";

const cents = (text) => Number(text.replace(".", ""));
const groupBy = (rows, key) => {
  const map = new Map();
  for (const row of rows) map.set(row[key], [...(map.get(row[key]) ?? []), row]);
  return map;
};

/** Whether a transaction's references and texts name `number` (an RF reference, or the number as typed). */
function names(text, number) {
  const [series, year, n] = number.split("-");
  return (
    text.replaceAll(" ", "").toUpperCase().includes(rfReference(number)) ||
    new RegExp(`${series}[\\s-]*${year}[\\s-]*0*${Number(n)}(?!\\d)`, "i").test(text)
  );
}

/** Each event about `subject` of `type`: exactly `expected` (0 or 1) of them. */
function expectEvents(findings, byKey, type, subject, expected, what) {
  const n = byKey.get(`${type} ${subject}`)?.length ?? 0;
  if (n < expected) findings.lose(`event ${type} ${subject}`, `${what} without its event`);
  if (n > expected) findings.duplicate(`event ${type} ${subject}`, `${n} events of ${what}, ${expected} expected`);
}

function checkStatements(world, rows, f) {
  const m = world.money;
  const stored = new Map(rows.statements.map((s) => [s.id, s]));
  for (const id of m.statements.keys()) {
    const s = stored.get(id);
    if (!s) f.lose(`bank_statement ${id}`, "answered 202, not stored");
    else if (s.state === "processing") f.lose(`bank_statement ${id}`, "still processing once the queues drained");
    else if (s.state !== "processed") f.misstate(`bank_statement ${id}`, `${s.state}: ${s.error}`);
  }
  const byE2e = groupBy(rows.transactions, "end_to_end_id");
  const invoices = new Map(rows.ledgerInvoices.map((i) => [i.id, i]));
  const paidBy = new Set(rows.payments.map((p) => `${p.bank_transaction_id} ${p.invoice_id}`));
  let named = 0;
  for (const plant of m.planted) {
    const txs = (byE2e.get(plant.e2e) ?? []).filter((t) => t.credit_debit === plant.direction);
    if (txs.length === 0) f.lose(`transaction ${plant.e2e}`, "in an uploaded statement, not stored");
    if (txs.length > 1) f.duplicate(`transaction ${plant.e2e}`, `stored ${txs.length} times`);
    if (txs.length !== 1 || txs[0].amount !== plant.amount) continue;
    // A transfer naming an invoice that is open still was read while it was open: it must have paid it.
    const invoice = invoices.get(plant.invoice);
    if ((plant.by === "rf" || plant.by === "number") && invoice?.state === "open") {
      named++;
      if (!paidBy.has(`${txs[0].id} ${invoice.id}`))
        f.lose(
          `transaction ${plant.e2e}`,
          `names open invoice ${invoice.number} (${plant.by}), allocated nothing to it`,
        );
    }
  }
  return (
    `bank statements: ${m.statements.size} uploaded (${m.counts.again} of them a file again) all processed; ` +
    `${m.planted.length} credits planted, each stored once; ${named} of them naming an invoice still open paid it`
  );
}

function checkAllocations(world, rows, f) {
  const m = world.money;
  const invoices = new Map(rows.ledgerInvoices.map((i) => [i.id, i]));
  const transactions = new Map(rows.transactions.map((t) => [t.id, t]));
  const payments = new Map(rows.payments.map((p) => [p.id, p]));
  const manual = new Set(m.allocations.map((a) => a.id));
  const collected = new Set(m.collections.flatMap((c) => c.blocks.flatMap((b) => b.debits.map((d) => d.number))));
  const ibanOf = new Map(world.tenants.map((t) => [t.id, t.iban]));
  for (const a of m.allocations) {
    const p = payments.get(a.id);
    if (
      !p ||
      p.invoice_id !== a.invoice_id ||
      p.amount !== cents(a.amount) ||
      p.bank_transaction_id !== a.bank_transaction_id
    )
      f.lose(`payment ${a.id}`, p ? "differs from its 201" : "allocation answered 201, not stored");
  }
  for (const id of m.paid)
    if (!rows.payments.some((p) => p.invoice_id === id && p.method === "manual"))
      f.lose(`pay ${id}`, "answered 200, no manual payment stored");
  const pairs = new Map();
  for (const p of rows.payments) {
    const invoice = invoices.get(p.invoice_id);
    const tx = transactions.get(p.bank_transaction_id);
    if (p.bank_transaction_id) {
      const pair = `${p.bank_transaction_id} ${p.invoice_id}`;
      if (pairs.has(pair)) f.duplicate(`payment ${p.id}`, `a second payment of transaction ${pair}`);
      pairs.set(pair, p);
    }
    // Where the rules (or a person, or pay) sent it: a wrong match is worse than none.
    const rightly =
      p.method === "manual"
        ? m.payTried.has(p.invoice_id)
        : p.method === "direct_debit"
          ? collected.has(invoice.number) && (tx?.end_to_end_id ?? invoice.number).startsWith(invoice.number)
          : manual.has(p.id) ||
            (tx &&
              (names(tx.text, invoice.number) ||
                (tx.counterparty_iban === ibanOf.get(invoice.customer_id) && tx.amount === p.amount)));
    if (!rightly)
      f.misstate(`payment ${p.id}`, `${p.method} payment of ${invoice?.number} that no rule or request made`);
  }
  const live = new Map();
  const byTx = new Map();
  for (const p of rows.payments) {
    if (!p.returned) live.set(p.invoice_id, (live.get(p.invoice_id) ?? 0) + p.amount);
    if (p.bank_transaction_id) byTx.set(p.bank_transaction_id, (byTx.get(p.bank_transaction_id) ?? 0) + p.amount);
  }
  for (const i of rows.ledgerInvoices) {
    const allocated = live.get(i.id) ?? 0;
    const why =
      i.allocated_amount !== allocated
        ? `allocated_amount ${i.allocated_amount}, its live payments ${allocated}`
        : allocated > (i.gross_amount ?? 0) + i.charges_amount
          ? `allocated ${allocated} over gross ${i.gross_amount} + charges ${i.charges_amount}`
          : i.state === "paid" && allocated < i.gross_amount
            ? `paid with ${allocated} of ${i.gross_amount}`
            : i.state === "open" && allocated >= i.gross_amount
              ? `open with ${allocated} of ${i.gross_amount} allocated`
              : undefined;
    if (why) f.misstate(`invoice ${i.number} money`, why);
  }
  for (const t of rows.transactions) {
    const paid = byTx.get(t.id) ?? 0;
    if (paid > t.allocated_amount || t.allocated_amount > t.amount)
      f.misstate(`transaction ${t.id}`, `payments ${paid}, allocated ${t.allocated_amount}, amount ${t.amount}`);
  }
  const returned = rows.payments.filter((p) => p.returned);
  for (const r of m.returns)
    if (!payments.get(r.payment)?.returned)
      f.lose(`return of payment ${r.payment}`, "planted, the payment not returned");
  const byMethod = groupBy(rows.payments, "method");
  return (
    `allocations: ${rows.payments.length} payments (${[...byMethod].map(([k, v]) => `${k} ${v.length}`).join(", ")}; ` +
    `${returned.length} returned, ${m.returns.length} returns planted), each where a rule, a person or pay sent it, ` +
    `none twice; ${m.allocations.length} allocations and ${m.paid.length} pays as answered; no invoice over its ` +
    `gross + charges, no transaction over its amount; allocated_amount = live payments for ${rows.ledgerInvoices.length} invoices`
  );
}

function checkMoneyEvents(world, rows, f) {
  const byKey = groupBy(
    rows.moneyEvents.map((e) => ({ ...e, key: `${e.type} ${e.subject}` })),
    "key",
  );
  for (const p of rows.payments) {
    expectEvents(f, byKey, "payment.received", p.id, 1, `payment ${p.id}`);
    expectEvents(f, byKey, "payment.returned", p.id, p.returned ? 1 : 0, `the return of payment ${p.id}`);
  }
  const subjects = new Set([...rows.payments, ...rows.deliveries, ...(rows.reminders ?? [])].map((r) => r.id));
  const invoices = new Set(rows.ledgerInvoices.map((i) => i.id));
  for (const e of rows.moneyEvents) {
    const about = /^(invoice\.|dunning\.)/.test(e.type) ? invoices.has(e.invoice) : subjects.has(e.subject);
    if (!about) f.duplicate(`event ${e.id}`, `${e.type} of nothing stored`);
  }
  const sent = { pending: 0, sent: 0, delivered: 0, failed: 0, skipped: 0, bounced: 0 };
  const causes = new Set(rows.deliveries.map((d) => `${d.invoice_id} ${d.cause}`));
  for (const d of rows.deliveries) {
    sent[d.state] = (sent[d.state] ?? 0) + 1;
    if (d.state === "pending") f.undeliver(`delivery ${d.id}`, "still pending once the queues drained");
    expectEvents(
      f,
      byKey,
      "invoice_delivery.sent",
      d.id,
      ["sent", "delivered", "bounced"].includes(d.state) ? 1 : 0,
      `delivery ${d.id}`,
    );
    expectEvents(f, byKey, "invoice_delivery.failed", d.id, d.state === "failed" ? 1 : 0, `delivery ${d.id}`);
  }
  for (const i of rows.ledgerInvoices) {
    if (!causes.has(`${i.id} invoice`)) f.lose(`delivery of ${i.number}`, "issued, never delivered");
    if (i.state === "cancelled" && !causes.has(`${i.id} credit_note`))
      f.lose(`delivery of ${i.number}'s credit note`, "cancelled, its credit note never delivered");
  }
  const stored = new Set(rows.deliveries.map((d) => d.id));
  for (const d of world.money.resends) if (!stored.has(d.id)) f.lose(`delivery ${d.id}`, "answered 201, not stored");
  let reminders = "reminders: skipped (no reminders table)";
  if (rows.reminders) {
    const levels = new Set();
    for (const r of rows.reminders) {
      const key = `${r.invoice_id} ${r.level}`;
      if (levels.has(key)) f.duplicate(`reminder ${r.id}`, `a second level ${r.level} reminder of ${r.invoice_id}`);
      levels.add(key);
      expectEvents(f, byKey, "reminder.created", r.id, 1, `reminder ${r.id}`);
      if (!rows.deliveries.some((d) => d.reminder_id === r.id))
        f.lose(`delivery of reminder ${r.id}`, "never delivered");
    }
    for (const r of rows.reminders)
      if (r.level > 1 && !levels.has(`${r.invoice_id} ${r.level - 1}`))
        f.misstate(`reminder ${r.id}`, "a level skipped");
    reminders = `${rows.reminders.length} reminders after ${world.money.dunningRuns} dunning runs, one per level, each with its event and delivery`;
  }
  return (
    `money events: one payment.received per payment, one payment.returned per return; deliveries ` +
    `${Object.entries(sent)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}, each with its event, every invoice's and ` +
    `credit note's there, ${world.money.resends.length} asked again as answered; ${reminders}`
  );
}

export const ledgerChecks = (world, rows) => [
  (f) => checkStatements(world, rows, f),
  (f) => checkAllocations(world, rows, f),
  (f) => checkMoneyEvents(world, rows, f),
];
