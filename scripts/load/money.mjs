// The load's money steps (docs/api.md parts 15 to 18; RELIABILITY.md): statements, allocations,
// collections, documents again, dunning runs; what each planted or was answered is kept in
// `world.money` for checkMoney (rows.mjs).
import { randomBytes, randomUUID } from "node:crypto";
import { sign } from "hono/jwt";
import { importSource } from "../import-source.mjs";
import { apiVars } from "../derived-config.mjs";
import { CRON_WORKER, runCron } from "../local-worker.mjs";
import { germanIban, rfReference } from "../../test/support/check-digits.mjs";
import { statusLabel } from "./http.mjs";
import { chance, pick } from "./util.mjs";

const { camt053File, earliestCollectionDate, isTarget2Day, addDays, dayIn } = await importSource(
  [
    'export { camt053File } from "./test/support/camt053-builder";',
    'export { earliestCollectionDate, isTarget2Day } from "./src/domain/target2";',
    'export { addDays, dayIn } from "./src/domain/time";',
  ].join("\n"),
);

const VARS = apiVars();
const OFFICE_SCOPES = "payments:read payments:write invoices:read";
// docs/api.md part 18: the daily run, and the days ahead it runs for (after due_on + 1, + 7, + 21, + 35:
// overdue, then levels 1 to 3 with wrangler.toml's DUNNING_DAYS defaults), one more each time.
export const DUNNING_CRON = "30 5 * * *";
const DUNNING_DAYS_AHEAD = [15, 22, 37, 52, 67];
const CRON_TRIES = 5;
const RETURN_REASONS = ["AM04", "MD06"];

const cents = (text) => {
  const [whole, fraction] = text.split(".");
  return Number(whole) * 100 + Number(fraction);
};
const money = (value) => `${Math.floor(value / 100)}.${String(value % 100).padStart(2, "0")}`;
const today = () => dayIn(new Date(), VARS.BUSINESS_TIME_ZONE ?? "Europe/Berlin");
const marker = () => `LOAD-${randomBytes(8).toString("hex")}`; // hex: never read as a reference
const tenantIban = (index) => germanIban(7_000_000 + index);

/** The back office (no customer) and what the money steps keep; each tenant's IBAN, which writeBillingProfiles uses. */
export async function createMoney(world, secret, { dunning, workerUrl, faulty }) {
  const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
  world.office = {
    sub: "back-office",
    tenant: null,
    token: await sign({ sub: "back-office", scope: OFFICE_SCOPES, exp }, secret, "HS256"),
  };
  world.tenants.forEach((tenant, i) => {
    tenant.iban = tenantIban(i + 1);
  });
  world.money = {
    dunning, // whether the service has reminders (the table exists)
    workerUrl,
    faulty,
    nextDunningAt: 0,
    payTried: new Set(), // ids of invoices the load sent `pay` for
    files: [], // xml of each uploaded file, for an upload of the same file again
    statements: new Map(), // id -> { again: whether its file was uploaded before }
    planted: [], // { e2e, direction, amount, invoice (id or null), by: "rf" | "number" | "iban" | "noise" | "batch" }
    allocations: [], // the payments allocations answered 201 with
    paid: [], // ids of invoices `pay` answered 200 for
    collections: [], // { id, blocks: [{ id, sum, debits: [{ e2e, amount, invoice }] }], settled: statement id }
    returns: [], // { invoice, payment } returns planted for a direct-debit payment seen
    resends: [], // deliveries POST /invoices/{id}/deliveries answered 201 with
    dunningRuns: 0,
    counts: {
      statements: 0,
      again: 0,
      credits: 0,
      batches: 0,
      settlements: 0,
      returns: 0,
      allocations: 0,
      allocationsRefused: 0,
      collections: 0,
      collectionsEmpty: 0,
      resends: 0,
    },
  };
}

const call = (world, op, principal, method, path, options) => world.send(principal, method, path, options, op);

function unexpected(world, op, result) {
  const label = `${op}: ${statusLabel(result)}`;
  world.unexpected.set(label, (world.unexpected.get(label) ?? 0) + 1);
}

/** Every tenant's invoices whose newest known state is open, with the tenant. */
const openInvoices = (world, method) =>
  world.tenants.flatMap((tenant) =>
    [...tenant.invoices.values()]
      .filter((i) => i.latest.state === "open" && (!method || i.latest.payment_method === method))
      .map((invoice) => ({ tenant, invoice })),
  );

/** An invoice number as people type it: case, hyphens and leading zeros vary. */
function typed(number) {
  const [series, year, n] = number.split("-");
  const digits = chance(0.3) ? `00${n}` : chance(0.5) ? String(Number(n)) : n;
  const text = pick([`${series}-${year}-${digits}`, `${series}${year}${digits}`, `${series} ${year} ${digits}`]);
  return chance(0.5) ? text.toLowerCase() : text;
}

/** A credit paying `invoice` (all of it, or half now and then), naming it one way or another. */
function creditFor(tenant, tracked) {
  const { id, number, gross_amount: gross } = tracked.latest;
  const amount = chance(0.2) ? Math.max(1, Math.floor(cents(gross) / 2)) : cents(gross);
  const e2e = marker();
  const by = pick(["rf", "rf", "rf-text", "number", "iban"]);
  const rf = rfReference(number);
  const detail = {
    amount: money(amount),
    endToEndId: e2e,
    debtorName: `Load ${tenant.id} GmbH`,
    debtorIban: tenant.iban,
    ...(by === "rf" && { structuredReference: rf }),
    ...(by === "rf-text" && { unstructured: [`Zahlung ${rf.replace(/(.{4})(?=.)/g, "$1 ")}`] }),
    ...(by === "number" && { unstructured: [`Rechnung ${typed(number)} vielen Dank`] }),
  };
  tracked.moneyTouched = true;
  // Rule 3 (no reference) pays only an invoice whose open amount equals the transfer's.
  const plant = { e2e, direction: "credit", amount, invoice: id, by: by === "rf-text" ? "rf" : by };
  if (by === "iban") plant.tenant = tenant;
  return { detail, plant };
}

const entry = (amount, details, extra = {}) => ({
  amount: money(amount),
  creditDebit: "credit",
  status: "BOOK",
  bookedOn: today(),
  valueDate: today(),
  accountServicerReference: marker(),
  details,
  ...extra,
});

/** Direct-debit settlements due: each block of a collection not yet settled, as a batch entry or one detail per debit. */
function settlements(world) {
  const entries = [];
  for (const collection of world.money.collections) {
    if (collection.settled) continue;
    collection.settled = "planted";
    for (const block of collection.blocks) {
      world.money.counts.settlements++;
      if (chance(0.5))
        entries.push(
          entry(block.sum, undefined, { batch: { paymentInformationId: block.id, count: block.debits.length } }),
        );
      else
        entries.push(
          entry(
            block.sum,
            block.debits.map((debit) => ({ amount: money(debit.amount), endToEndId: debit.e2e })),
            { batch: { paymentInformationId: block.id, count: block.debits.length } },
          ),
        );
    }
  }
  return entries;
}

/** Returns of direct-debit payments the invoices show (settled by a processed statement), now and then. */
async function returnsDue(world) {
  const entries = [];
  for (const collection of world.money.collections) {
    if (!collection.statement || collection.returnsDone) continue;
    collection.returnsDone = true; // before the read: another connection's statement must not return them too
    const statement = await world.send(world.office, "GET", `/bank_statements/${collection.statement}`);
    if (statement.status !== 200 || statement.body.data.state !== "processed") {
      collection.returnsDone = false;
      continue;
    }
    for (const debit of collection.blocks.flatMap((block) => block.debits)) {
      const { tenant, invoice } = invoiceNumbered(world, debit.number) ?? {};
      if (!invoice || !chance(0.3)) continue;
      const principal = world.principals.find((p) => p.tenant === tenant);
      const listed = await world.send(principal, "GET", `/invoices/${invoice.latest.id}/payments?page_size=100`);
      const payment = listed.body?.data?.find(
        (p) => p.method === "direct_debit" && p.returned_at === null && p.amount === money(debit.amount),
      );
      if (!payment) continue;
      world.money.returns.push({ invoice: invoice.latest.id, payment: payment.id, e2e: debit.e2e });
      world.money.counts.returns++;
      entries.push({
        ...entry(debit.amount, [
          { amount: money(debit.amount), endToEndId: debit.e2e, returnReason: pick(RETURN_REASONS) },
        ]),
        creditDebit: "debit",
      });
    }
  }
  return entries;
}

/** The invoice of that number the client knows, with its tenant. */
function invoiceNumbered(world, number) {
  for (const tenant of world.tenants)
    for (const invoice of tenant.invoices.values()) if (invoice.latest.number === number) return { tenant, invoice };
}

/** A statement paying a few open invoices, settling the collections made since the last one, returning some debits. */
export async function uploadStatement(world) {
  const { money: m } = world;
  const op = "POST /bank_statements";
  let xml;
  let plants = [];
  let settling = [];
  if (m.files.length && chance(0.1)) {
    xml = pick(m.files); // the same file again: nothing in it may pay twice
  } else {
    const credits = [];
    for (let n = 1 + Math.floor(Math.random() * 4); n > 0; n--) {
      const candidates = openInvoices(world, "bank_transfer");
      if (!candidates.length) break;
      const { tenant, invoice } = pick(candidates);
      credits.push(creditFor(tenant, invoice));
    }
    const entries = [];
    // A batch entry of several transfers (one detail each), or one entry each.
    if (credits.length > 1 && chance(0.3)) {
      m.counts.batches++;
      entries.push(
        entry(
          credits.reduce((sum, c) => sum + cents(c.detail.amount), 0),
          credits.map((c) => c.detail),
        ),
      );
    } else entries.push(...credits.map((c) => entry(cents(c.detail.amount), [c.detail])));
    plants = credits.map((c) => c.plant);
    if (chance(0.3)) {
      // Noise: from nobody's IBAN, naming nothing, for a person to allocate.
      const e2e = marker();
      const amount = 100 + Math.floor(Math.random() * 20_000);
      entries.push(
        entry(amount, [
          {
            amount: money(amount),
            endToEndId: e2e,
            debtorName: "Unbekannt",
            debtorIban: germanIban(9_000_000 + Math.floor(Math.random() * 1e6)),
            unstructured: ["Danke"],
          },
        ]),
      );
      plants.push({ e2e, direction: "credit", amount, invoice: null, by: "noise" });
    }
    settling = m.collections.filter((c) => !c.settled);
    entries.push(...settlements(world), ...(await returnsDue(world)));
    if (!entries.length) return;
    xml = camt053File({
      version: chance(0.5) ? "camt.053.001.02" : "camt.053.001.08",
      messageId: marker(),
      createdAt: `${today()}T12:00:00`,
      statements: [{ id: marker(), iban: VARS.CREDITOR_IBAN, entries }],
    });
  }
  const result = await call(world, op, world.office, "POST", "/bank_statements", { xml, key: randomUUID() });
  if (result.status !== 202) {
    unexpected(world, op, result);
    for (const c of settling) c.settled = undefined; // to be settled by the next statement
    return;
  }
  const again = m.files.includes(xml);
  if (!again) m.files.push(xml);
  m.counts.statements++;
  if (again) m.counts.again++;
  for (const statement of result.body.data) m.statements.set(statement.id, { again });
  for (const c of settling) c.statement = result.body.data[0].id;
  m.planted.push(...plants);
  m.counts.credits += plants.length;
}

/** A person allocates what an unmatched or overpaid transaction has unapplied to an open invoice. */
export async function allocate(world) {
  const op = "POST /bank_transactions/{id}/allocations";
  const state = pick(["unmatched", "overpaid"]);
  const listed = await call(
    world,
    "GET /bank_transactions",
    world.office,
    "GET",
    `/bank_transactions?state=${state}&page_size=25`,
  );
  if (listed.status !== 200) return unexpected(world, "GET /bank_transactions", listed);
  const transaction = listed.body.data.find((t) => t.credit_debit === "credit" && cents(t.unapplied_amount) > 0);
  const candidates = openInvoices(world);
  if (!transaction || !candidates.length) return;
  const { tenant, invoice } = pick(candidates);
  const principal = world.principals.find((p) => p.tenant === tenant);
  const balance = await call(
    world,
    "GET /invoices/{id}/balance",
    principal,
    "GET",
    `/invoices/${invoice.latest.id}/balance`,
  );
  if (balance.status !== 200) return unexpected(world, "GET /invoices/{id}/balance", balance);
  const open = cents(balance.body.data.open_amount);
  const amount = Math.min(open, cents(transaction.unapplied_amount));
  if (amount <= 0) return;
  invoice.moneyTouched = true;
  const json = { invoice_id: invoice.latest.id, amount: money(amount) };
  const result = await call(world, op, world.office, "POST", `/bank_transactions/${transaction.id}/allocations`, {
    json,
    key: randomUUID(),
  });
  // Another allocation, a statement or a pay may have taken the amount meanwhile.
  if (result.status === 409 && result.code === "conflict") return void world.money.counts.allocationsRefused++;
  if (result.status !== 201) return unexpected(world, op, result);
  world.money.allocations.push(result.body.data[0]);
  world.money.counts.allocations++;
}

/** A collection of the open direct-debit invoices due by the first day it may be made for; its pain.008 read back. */
export async function collect(world) {
  const op = "POST /direct_debit_collections";
  let day = earliestCollectionDate(today(), Number(VARS.DIRECT_DEBIT_LEAD_DAYS ?? "1"));
  const due = openInvoices(world, "direct_debit")
    .map(({ invoice }) => invoice.latest.due_on)
    .sort()
    .at(-1);
  if (!due) return;
  if (due > day) for (day = due; !isTarget2Day(day); day = addDays(day, 1));
  const result = await call(world, op, world.office, "POST", "/direct_debit_collections", {
    json: { collection_date: day },
    key: randomUUID(),
  });
  if (result.status === 409 && result.code === "conflict") return void world.money.counts.collectionsEmpty++; // all in pending ones
  if (result.status !== 201) return unexpected(world, op, result);
  const { id } = result.body.data[0];
  const document = await call(
    world,
    "GET /direct_debit_collections/{id}/document",
    world.office,
    "GET",
    `/direct_debit_collections/${id}/document`,
  );
  if (document.status !== 200) return unexpected(world, "GET /direct_debit_collections/{id}/document", document);
  const tag = (xml, name) => xml.match(new RegExp(`<${name}[^>]*>([^<]*)</${name}>`))?.[1];
  const blocks = [...document.text.matchAll(/<PmtInf>([\s\S]*?)<\/PmtInf>/g)].map(([, block]) => ({
    id: tag(block, "PmtInfId"),
    sum: cents(tag(block, "CtrlSum")),
    // By number: an invoice a production start or delivery issued just now may be one the client has not read yet.
    debits: [...block.matchAll(/<DrctDbtTxInf>([\s\S]*?)<\/DrctDbtTxInf>/g)].map(([, tx]) => {
      const e2e = tag(tx, "EndToEndId");
      return { e2e, amount: cents(tag(tx, "InstdAmt")), number: e2e.replace(/-R\d+$/, "") };
    }),
  }));
  world.money.collections.push({ id, blocks });
  world.money.counts.collections++;
}

/** A tenant asks for an invoice's document again (or its credit note, once cancelled). */
export async function resendDelivery(world, principal) {
  const invoices = [...principal.tenant.invoices.values()];
  if (!invoices.length) return;
  const invoice = pick(invoices);
  const op = "POST /invoices/{id}/deliveries";
  const json =
    invoice.latest.state === "cancelled" && chance(0.5)
      ? { document: "credit_note" }
      : chance(0.3)
        ? { format: pick(["pdf", "ubl", "cii"]) }
        : {};
  const result = await call(world, op, principal, "POST", `/invoices/${invoice.latest.id}/deliveries`, {
    json,
    key: randomUUID(),
  });
  if (result.status !== 201) return unexpected(world, op, result);
  world.money.resends.push(result.body.data[0]);
  world.money.counts.resends++;
}

/** The dunning run (its daily Cron Trigger) for the next day ahead, through wrangler's Local Explorer; under faults tried again. */
export async function runDunning(world) {
  const m = world.money;
  const { workerUrl, faulty } = m;
  if (!m.dunning || m.dunningRuns >= DUNNING_DAYS_AHEAD.length || Date.now() < m.nextDunningAt) return;
  m.nextDunningAt = Date.now() + 5000;
  const day = addDays(today(), DUNNING_DAYS_AHEAD[m.dunningRuns++]);
  for (const tenant of world.tenants) for (const i of tenant.invoices.values()) i.moneyTouched = true; // dunning moves open invoices
  for (let attempt = 1; ; attempt++) {
    try {
      return await runCron(workerUrl, DUNNING_CRON, CRON_WORKER, Date.parse(`${day}T05:30:00Z`));
    } catch (error) {
      if (!faulty || attempt >= CRON_TRIES) throw error;
    }
  }
}

// The per-minute cron resumes a statement idle 5 min (a lost message); dated this far ahead, it waits 1 min.
const STALLED_AHEAD_MS = 4 * 60_000;

/** Waits until every statement is processed and no delivery pending, running the per-minute cron every 5 s. */
export async function awaitMoney(world, { boundMs, stopSignal, faulty }) {
  for (const { blocks } of world.money.collections)
    for (const { number } of blocks.flatMap((block) => block.debits)) {
      const known = invoiceNumbered(world, number);
      if (known) known.invoice.moneyTouched = true; // its settlement or return moved it
    }
  // Rule 3 pays whichever one invoice of the payer has the amount open when the statement is read.
  for (const { tenant, amount } of world.money.planted.filter((plant) => plant.tenant))
    for (const invoice of tenant.invoices.values())
      if (invoice.latest.gross_amount && cents(invoice.latest.gross_amount) === amount) invoice.moneyTouched = true;
  const redispatch = () => runCron(world.money.workerUrl, "* * * * *", CRON_WORKER, Date.now() + STALLED_AHEAD_MS);
  const started = Date.now();
  let failures = 0;
  const pending = async () => {
    const deliveries = await world.send(world.office, "GET", "/invoice_deliveries?state=pending&page_size=1");
    if (deliveries.status !== 200 || deliveries.body.meta.total_entries > 0) return true;
    for (let next = "/bank_statements?page_size=100"; next; ) {
      const page = await world.send(world.office, "GET", next);
      if (page.status !== 200 || page.body.data.some((s) => s.state === "processing")) return true;
      next = page.body.links.next;
    }
    return false;
  };
  while ((await pending()) && Date.now() - started < boundMs && !stopSignal.aborted) {
    try {
      await redispatch();
      failures = 0;
    } catch (error) {
      if (!faulty || ++failures >= CRON_TRIES) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  return Date.now() - started;
}
