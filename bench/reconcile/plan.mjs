// The reconciliation bench's data: open invoices, a statement paying them (the mix: BENCHMARKS.md,
// "Reconciliation"), and what docs/api.md part 15's rules make of each transaction, decided here when
// it is built, not by the service's code. Deterministic: the same seed makes the same file.
import { germanIban, holdsMod97, rfReference } from "../../test/support/check-digits.mjs";

const YEAR = 2026;
const SERIES = "INV";

/** The same reference with check digits that are wrong. */
function wrongRf(number, rng) {
  const body = number.replaceAll("-", "");
  for (;;) {
    const reference = `RF${String(2 + Math.floor(rng() * 97)).padStart(2, "0")}${body}`;
    if (!holdsMod97(reference)) return reference;
  }
}

const grouped = (reference) => reference.replace(/(.{4})(?=.)/g, "$1 ");
const numberOf = (year, n) => `${SERIES}-${year}-${String(n).padStart(6, "0")}`;

/** mulberry32: a small seeded generator, so that a run can be repeated exactly. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CUSTOMER_NAMES = [
  "Acme Kantinen GmbH",
  "Müller & Söhne Gastronomie GmbH",
  "Bäckerei Schmidt OHG",
  "Nordlicht Logistik AG",
  "Café <Zentral> e.K.",
  "Stadtwerke Beispielstadt",
  "Grünwald Pflege gGmbH",
  "Weiß & Partner mbB",
];
const THANKS = ["", "Vielen Dank", "Danke", "Zahlung", "Überweisung", "Gutschrift"];
const NOISE_TEXTS = [
  "Miete Buero 11/2026",
  "Erstattung Auslagen",
  "Spende",
  "Kaution Rückzahlung",
  "Bestellung 4711",
  "Kundennummer 20261120",
  "Zahlung laut Vertrag",
  "Umbuchung",
];

export function makePlan({ transactions: N, invoices: M, customers: C = 40, seed = 32 }) {
  const rng = generator(seed);
  const pick = (list) => list[Math.floor(rng() * list.length)];
  const between = (low, high) => low + Math.floor(rng() * (high - low + 1)); // inclusive
  const shuffle = (list) => {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    return list;
  };

  const counts = {
    rf: Math.round(N * 0.6),
    numbers: Math.round(N * 0.25),
    partial: Math.round(N * 0.05),
    several: Math.round(N * 0.05),
  };
  counts.noise = N - counts.rf - counts.numbers - counts.partial - counts.several;
  const severalOfTwo = Math.ceil(counts.several / 2);
  const severalInvoices = severalOfTwo * 2 + (counts.several - severalOfTwo) * 3;
  const paidByInstalments = M - severalInvoices - counts.partial;
  const instalments = counts.rf + counts.numbers;
  const MAX_INSTALMENTS = 4;
  if (paidByInstalments < 1 || paidByInstalments > instalments || paidByInstalments * MAX_INSTALMENTS < instalments)
    throw new Error(
      `${N} transactions cannot pay ${M} invoices in this mix: ${paidByInstalments} invoices would take ` +
        `${instalments} RF and number transfers (1 to ${MAX_INSTALMENTS} each)`,
    );

  // The customers, each paying from an IBAN of its own (bank code 37040044).
  const customers = Array.from({ length: C }, (_, k) => ({
    id: `bench-reconcile-customer-${String(k + 1).padStart(2, "0")}`,
    name: `${CUSTOMER_NAMES[k % CUSTOMER_NAMES.length]} ${k + 1}`,
    iban: germanIban(1_000_000 + k),
  }));

  // The invoices: INV-2026-000001 .. in a random order of use; 10.00 to 5,000.00 EUR.
  const invoices = Array.from({ length: M }, (_, i) => {
    const n = i + 1;
    return {
      index: i,
      id: `${(0xbe0c0000 + n).toString(16)}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
      orderId: `${(0xbe0d0000 + n).toString(16)}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
      number: numberOf(YEAR, n),
      n,
      gross: between(1_000, 500_000),
      customer: null,
    };
  });
  const byNumber = new Map(invoices.map((invoice) => [invoice.number, invoice]));
  const unused = shuffle([...invoices]);
  const take = (customer) => {
    const invoice = unused.pop();
    invoice.customer = customer;
    return invoice;
  };

  /** How a transfer names its invoices: what goes into Strd, Ustrd and EndToEndId. */
  const singleRf = (invoice) => {
    const rf = rfReference(invoice.number);
    const thanks = pick(THANKS);
    switch (Math.floor(rng() * 4)) {
      case 0:
        return { style: "rf-structured", structured: rf, text: thanks };
      case 1:
        return { style: "rf-structured-grouped", structured: grouped(rf), text: thanks };
      case 2:
        return { style: "rf-text", text: `${thanks} ${rf}`.trim() };
      default:
        return { style: "rf-text-grouped", text: `${grouped(rf)} ${thanks}`.trim() };
    }
  };
  const typed = (invoice) => {
    const { n } = invoice;
    const six = String(n).padStart(6, "0");
    return pick([
      `${SERIES}-${YEAR}-${six}`,
      `inv-${YEAR}-${six}`,
      `${SERIES} ${YEAR} ${n}`,
      `inv ${YEAR} ${n}`,
      `${SERIES}${YEAR}${six}`,
      `Inv-${YEAR}-${n}`,
      `${SERIES} ${YEAR}-${six}`,
      `${SERIES}-${YEAR} ${String(n).padStart(8, "0")}`,
    ]);
  };
  const singleNumber = (invoice) => {
    if (rng() < 0.1) return { style: "number-e2e", endToEnd: typed(invoice).toUpperCase(), text: pick(THANKS) };
    const before = pick(["Rechnung", "Rechnungsnr.", "Re", "Beleg", "", "Zahlung zu"]);
    const after = pick(["", "vom 02.11.2026", "Kd 17", "danke", "Teilzahlung"]);
    return { style: "number-text", text: `${before} ${typed(invoice)} ${after}`.trim() };
  };
  const severalRefs = (named) => {
    switch (Math.floor(rng() * 4)) {
      case 0:
        return { style: "several-rf-text", text: named.map((i) => rfReference(i.number)).join(" ") };
      case 1:
        return { style: "several-rf-grouped", text: named.map((i) => grouped(rfReference(i.number))).join(", ") };
      case 2:
        return {
          style: "several-numbers",
          text: `Rechnungen ${named
            .map(typed)
            .join(", ")
            .replace(/, ([^,]*)$/, " und $1")}`,
        };
      default:
        return {
          style: "several-mixed",
          structured: rfReference(named[0].number),
          text: `auch ${named.slice(1).map(typed).join(" ")}`,
        };
    }
  };

  const drafts = [];
  // Several: two or three invoices of one customer, their sum.
  for (let k = 0; k < counts.several; k++) {
    const customer = pick(customers);
    const named = Array.from({ length: k < severalOfTwo ? 2 : 3 }, () => take(customer));
    const amount = named.reduce((sum, i) => sum + i.gross, 0);
    drafts.push({ kind: "several", customer, named, amount, ...severalRefs(named) });
  }
  // Partial: less than the invoice's amount, nothing else pays it.
  for (let k = 0; k < counts.partial; k++) {
    const customer = pick(customers);
    const invoice = take(customer);
    const amount = Math.max(1, Math.floor(invoice.gross * (0.2 + 0.7 * rng())));
    drafts.push({
      kind: "partial",
      customer,
      named: [invoice],
      amount,
      ...(rng() < 0.5 ? singleRf : singleNumber)(invoice),
    });
  }
  // RF and number transfers: every remaining invoice paid in 1 to MAX_INSTALMENTS parts that add up to it.
  const rest = unused.splice(0).map((invoice) => {
    invoice.customer = pick(customers);
    return { invoice, parts: 1 };
  });
  for (let extra = instalments - rest.length; extra > 0; ) {
    const slot = pick(rest);
    if (slot.parts < MAX_INSTALMENTS) (slot.parts += 1), (extra -= 1);
  }
  const styles = shuffle([...Array(counts.rf).fill("rf"), ...Array(counts.numbers).fill("numbers")]);
  for (const { invoice, parts } of rest) {
    const cuts = new Set();
    while (cuts.size < parts - 1) cuts.add(between(1, invoice.gross - 1));
    const edges = [0, ...[...cuts].sort((a, b) => a - b), invoice.gross];
    for (let p = 0; p < parts; p++) {
      const kind = styles.pop();
      const refs = kind === "rf" ? singleRf(invoice) : singleNumber(invoice);
      drafts.push({
        kind,
        instalment: parts > 1 ? `${p + 1}/${parts}` : null,
        customer: invoice.customer,
        named: [invoice],
        amount: edges[p + 1] - edges[p],
        ...refs,
      });
    }
  }
  // Noise: names nothing, from an IBAN of its own (bank code 50010517).
  const grosses = invoices.map((i) => i.gross);
  for (let k = 0; k < counts.noise; k++) {
    const iban = germanIban(2_000_000 + k, "50010517");
    const amount = rng() < 0.2 ? pick(grosses) : between(100, 200_000);
    const draw = rng();
    const someone = pick(invoices);
    let refs;
    if (draw < 0.6) refs = { style: "noise-plain", text: pick(NOISE_TEXTS) };
    else if (draw < 0.7)
      refs = { style: "noise-bad-rf-structured", structured: wrongRf(someone.number, rng), text: "" };
    else if (draw < 0.8) refs = { style: "noise-bad-rf-text", text: `Zahlung ${wrongRf(someone.number, rng)}` };
    else if (draw < 0.9)
      refs = {
        style: "noise-unknown-number",
        text: `Rechnung ${numberOf(YEAR, M + 1000 + k)} und ${numberOf(YEAR - 1, someone.n)}`,
      };
    else refs = { style: "noise-unknown-rf", structured: rfReference(numberOf(YEAR, M + 1000 + k)), text: "" };
    drafts.push({ kind: "noise", customer: null, iban, named: [], amount, ...refs });
  }
  if (drafts.length !== N) throw new Error(`the plan has ${drafts.length} transactions, not ${N}`);
  shuffle(drafts);

  // The expectation: rule 2 played over the file in order (rule 3 finds no customer for any IBAN
  // here: the referencing transfers name known invoices, the noise comes from IBANs nobody else uses).
  const open = new Map(invoices.map((i) => [i.number, i.gross]));
  const transactions = drafts.map((draft, position) => {
    const referencedOpen = draft.named.some((i) => open.get(i.number) > 0);
    let left = draft.amount;
    const expected = [];
    for (const invoice of draft.named) {
      const available = open.get(invoice.number);
      if (left === 0 || available === 0) continue;
      const taken = Math.min(left, available);
      expected.push({ number: invoice.number, amount: taken });
      open.set(invoice.number, available - taken);
      left -= taken;
    }
    if (draft.kind !== "noise" && left !== 0)
      throw new Error(`plan: transaction ${position} (${draft.kind}) would leave ${left} cents unapplied`);
    return {
      position,
      kind: draft.kind,
      style: draft.style,
      instalment: draft.instalment ?? null,
      amount: draft.amount,
      iban: draft.iban ?? draft.customer.iban,
      name: draft.customer?.name ?? `Unbekannt ${position}`,
      customerId: draft.customer?.id ?? null,
      structured: draft.structured,
      text: draft.text,
      endToEnd: draft.endToEnd,
      named: draft.named.map((i) => i.number),
      referencedOpen,
      expected,
      expectedState: expected.length === 0 ? "unmatched" : "matched",
    };
  });
  const finalInvoices = invoices.map((i) => ({
    number: i.number,
    gross: i.gross,
    allocated: i.gross - open.get(i.number),
    state: open.get(i.number) === 0 ? "paid" : "open",
  }));
  return { counts, customers, invoices, byNumber, transactions, finalInvoices, year: YEAR };
}

const money = (cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

/**
 * The plan's statement for test/support/camt053-builder.ts, booked over November 2026 in file order,
 * now and then a batch booking of 2 to 5; 1 % of the amounts with a zero past the cent ("18.150").
 */
export function statementDescription(plan, { version, iban, seed = 32 }) {
  const rng = generator(seed + 1);
  const { transactions } = plan;
  const entries = [];
  const detailOf = (tx) => ({
    amount: rng() < 0.01 ? `${money(tx.amount)}0` : money(tx.amount),
    endToEndId: tx.endToEnd ?? (rng() < 0.3 ? `E2E${String(tx.position).padStart(8, "0")}` : "NOTPROVIDED"),
    debtorName: tx.name,
    debtorIban: tx.iban,
    ...(tx.structured ? { structuredReference: tx.structured } : {}),
    ...(tx.text ? { unstructured: [tx.text] } : {}),
  });
  for (let i = 0; i < transactions.length; ) {
    const size = rng() < 0.03 ? Math.min(2 + Math.floor(rng() * 4), transactions.length - i) : 1;
    const chunk = transactions.slice(i, i + size);
    const day = `2026-11-${String(1 + Math.floor((i / transactions.length) * 30)).padStart(2, "0")}`;
    const details = chunk.map(detailOf);
    const total = chunk.reduce((sum, tx) => sum + tx.amount, 0);
    entries.push({
      // An entry of one detail carries the amount once, on the entry.
      amount: size === 1 ? details[0].amount : money(total),
      creditDebit: "credit",
      status: "BOOK",
      bookedOn: day,
      valueDate: day,
      accountServicerReference: `BR${day.replaceAll("-", "")}${String(entries.length + 1).padStart(7, "0")}`,
      details: size === 1 ? details.map(({ amount, ...detail }) => detail) : details,
    });
    i += size;
  }
  return {
    version,
    messageId: `BENCH-RECONCILE-${transactions.length}`,
    createdAt: "2026-11-30T20:00:00",
    statements: [{ id: `STMT-2026-11-${transactions.length}`, iban, from: "2026-11-01", to: "2026-11-30", entries }],
  };
}
