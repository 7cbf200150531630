import { env } from "cloudflare:workers";
import { SaxesParser } from "saxes";
import { beforeEach, describe, expect, it } from "vitest";
import { messageIdOf } from "../src/domain/direct-debits";
import { earliestCollectionDate, isTarget2Day } from "../src/domain/target2";
import { addDays } from "../src/domain/time";
import {
  type Bindings,
  businessDay,
  call,
  listLink,
  customerOfToken,
  expectError,
  expectJson,
  ISO_MS,
  newBillingProfile,
  singlePage,
  storeBillingProfile,
  token,
  UUID,
  unique,
} from "./support/api";
import type { Camt053Entry, Camt053Version } from "./support/camt053-builder";
import {
  backOffice,
  credit,
  germanIban,
  invoiceOf,
  read,
  rfReference,
  statementFile,
  toCents,
  toMoney,
  transactionsOf,
  upload,
} from "./support/payments";
import { drainStatements, queued, statementsQueued } from "./support/queue";

// CONTRACT part 16 through the API: POST /direct_debit_collections (the TARGET2 calendar and D-1, what a
// collection takes, FRST and RCUR, end-to-end ids, amendments, agents, addresses, names, expiry, what
// a return holds), the list and the collection, its pain.008.001.08 document (the same bytes on every
// request, the sums adding up, ids in the SEPA set), then settlement and returns read from uploaded
// camt.053 statements in both versions. The pure rules: direct-debits.domain.test.ts; the file against
// ISO's schema and the whole loop under wrangler dev: dev-server/direct-debit.test.mjs.
//
// A collection takes every collectable invoice of every customer (the back office's): each test starts
// with none (beforeEach moves the open direct-debit invoices earlier tests left out of reach), and
// every debtor has a mandate reference and an IBAN of its own.

const VERSIONS: Camt053Version[] = ["camt.053.001.02", "camt.053.001.08"];
const SEPA_ID = /^[A-Za-z0-9/?:().,'+-]{1,35}$/;
const SEPA_TEXT = /^[A-Za-z0-9/?:().,'+ -]*$/;
const COLLECTION_FIELDS = [
  "id",
  "type",
  "collection_date",
  "message_id",
  "transactions_count",
  "control_sum",
  "state",
  "created_at",
];

let office: string;
beforeEach(async () => {
  office = await backOffice();
  queued.take();
  statementsQueued.take();
  // Out of every later collection's reach: due in 2999.
  await env.DB.prepare(
    "UPDATE invoices SET due_on = '2999-12-31' WHERE payment_method = 'direct_debit' AND state = 'open'",
  ).run();
});

// --- Dates (today in BUSINESS_TIME_ZONE, as the service counts).

const today = () => businessDay();
const firstOpenFrom = (day: string) => {
  let open = day;
  while (!isTarget2Day(open)) open = addDays(open, 1);
  return open;
};
/** The earliest collection date under the default D-1. */
const earliest = () => earliestCollectionDate(today(), 1);
/** The first collection date that takes an invoice issued today (due in 14 days). */
const dueDate = () => firstOpenFrom(addDays(today(), 14));
/** The next TARGET2 day after `day`. */
const nextOpen = (day: string) => firstOpenFrom(addDays(day, 1));

// --- Debtors and their invoices.

let accounts = 0;
/** A customer with a direct-debit mandate of its own (newBillingProfile with `fields` over it). */
async function debtor(fields: Parameters<typeof storeBillingProfile>[1] = {}) {
  const auth = await token();
  const profile = {
    direct_debit_iban: germanIban(4_000_000 + accounts++),
    direct_debit_mandate_reference: unique("MNDT"),
    ...fields,
  };
  await storeBillingProfile(auth, profile);
  return { auth, customerId: customerOfToken(auth), profile: { ...newBillingProfile, ...profile } };
}

/** An open direct-debit invoice of `auth`'s customer, issued today (due in 14 days). */
const ddInvoice = (auth: string, amount = "25.00") => invoiceOf(auth, amount, "direct_debit");

/** Makes an invoice due on `day` (as if issued earlier). */
const dueOn = (invoiceId: string, day: string) =>
  env.DB.prepare("UPDATE invoices SET due_on = ? WHERE id = ?").bind(day, invoiceId).run();

// --- Collections.

const post = (date: unknown, bindings?: Bindings, auth = office) =>
  call("/direct_debit_collections", { token: auth, json: { collection_date: date }, env: bindings });

/** POST /direct_debit_collections: 201, the collection. */
async function collect(date: string, bindings?: Bindings): Promise<any> {
  const response = await post(date, bindings);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text).data[0];
}

const count = async (table: string) => (await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<number>("n"))!;
const stored = async () => ({
  collections: await count("direct_debit_collections"),
  debits: await count("direct_debits"),
  total: (await read(office, "/direct_debit_collections")).length,
});

// --- The pain.008 document, read into a tree.

interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  text: string;
}

/** `xml` as a tree (saxes: a strict, namespace-aware parser, as the service reads camt.053 with). */
function parseXml(xml: string): XmlNode {
  const parser = new SaxesParser({ xmlns: true });
  const root: XmlNode = { name: "#document", attributes: {}, children: [], text: "" };
  const stack = [root];
  parser.on("opentag", (tag) => {
    const attributes = Object.fromEntries(Object.values(tag.attributes).map((a: any) => [a.name, a.value]));
    const node: XmlNode = { name: tag.local, attributes, children: [], text: "" };
    stack.at(-1)!.children.push(node);
    stack.push(node);
  });
  parser.on("text", (text) => {
    stack.at(-1)!.text += text;
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("error", (error) => {
    throw error;
  });
  parser.write(xml).close();
  expect(root.children).toHaveLength(1);
  return root.children[0]!;
}

/** Every node at `path` (names separated by /) below `node`. */
const all = (node: XmlNode | undefined, path: string): XmlNode[] =>
  path
    .split("/")
    .reduce<XmlNode[]>(
      (nodes, name) => nodes.flatMap((n) => n.children.filter((c) => c.name === name)),
      node ? [node] : [],
    );
const one = (node: XmlNode | undefined, path: string): XmlNode | undefined => all(node, path)[0];
/** The text at `path`, or undefined when there is no such element. */
const textAt = (node: XmlNode | undefined, path: string): string | undefined => one(node, path)?.text.trim();

interface Debit {
  endToEndId: string;
  amount: string;
  currency: string;
  sequence: string;
  paymentInformationId: string;
  mandateId: string;
  signedOn: string;
  amendment: string | undefined;
  originalIban: string | undefined;
  agentBic: string | undefined;
  agentOther: string | undefined;
  name: string;
  address: Record<string, string | undefined> | undefined;
  iban: string;
  referenceType: string | undefined;
  reference: string | undefined;
  unstructured: string | undefined;
}

/** What a pain.008 says of each debit, in file order, and the file's tree. */
function readPain008(xml: string) {
  const document = parseXml(xml);
  const initiation = one(document, "CstmrDrctDbtInitn")!;
  const blocks = all(initiation, "PmtInf");
  const debits: Debit[] = blocks.flatMap((block) =>
    all(block, "DrctDbtTxInf").map((tx) => {
      const mandate = one(tx, "DrctDbtTx/MndtRltdInf");
      const address = one(tx, "Dbtr/PstlAdr");
      return {
        endToEndId: textAt(tx, "PmtId/EndToEndId")!,
        amount: textAt(tx, "InstdAmt")!,
        currency: one(tx, "InstdAmt")!.attributes.Ccy!,
        sequence: textAt(block, "PmtTpInf/SeqTp")!,
        paymentInformationId: textAt(block, "PmtInfId")!,
        mandateId: textAt(mandate, "MndtId")!,
        signedOn: textAt(mandate, "DtOfSgntr")!,
        amendment: textAt(mandate, "AmdmntInd"),
        originalIban: textAt(mandate, "AmdmntInfDtls/OrgnlDbtrAcct/Id/IBAN"),
        agentBic: textAt(tx, "DbtrAgt/FinInstnId/BICFI"),
        agentOther: textAt(tx, "DbtrAgt/FinInstnId/Othr/Id"),
        name: textAt(tx, "Dbtr/Nm")!,
        address:
          address &&
          Object.fromEntries(
            ["StrtNm", "BldgNb", "PstCd", "TwnNm", "Ctry"].map((name) => [name, textAt(address, name)] as const),
          ),
        iban: textAt(tx, "DbtrAcct/Id/IBAN")!,
        referenceType: textAt(tx, "RmtInf/Strd/CdtrRefInf/Tp/CdOrPrtry/Cd"),
        reference: textAt(tx, "RmtInf/Strd/CdtrRefInf/Ref"),
        unstructured: textAt(tx, "RmtInf/Ustrd"),
      };
    }),
  );
  return { document, initiation, blocks, debits };
}

/** GET the collection's document: 200 and the file, read. */
async function documentOf(collection: any, bindings?: Bindings) {
  const response = await call(`/direct_debit_collections/${collection.id}/document`, {
    token: office,
    env: bindings,
  });
  const xml = await response.text();
  expect(response.status, xml).toBe(200);
  return { response, xml, ...readPain008(xml) };
}

/** The debit of `invoice` in the collection's file (its end-to-end id starts with the invoice number). */
async function debitOf(collection: any, invoice: any): Promise<Debit> {
  const { debits } = await documentOf(collection);
  const found = debits.filter((d) => d.endToEndId === invoice.number || d.endToEndId.startsWith(`${invoice.number}-R`));
  expect(found, `${invoice.number} in ${collection.message_id}`).toHaveLength(1);
  return found[0]!;
}

/** The end-to-end ids of a collection's file, sorted. */
const endToEndIds = async (collection: any) => (await documentOf(collection)).debits.map((d) => d.endToEndId).sort();

// --- Statements.

const RETURNED_ON = "2026-11-25";

/** Uploads `entries` as one statement in `version`, drains the statements queue: the statement and its transactions. */
async function statementOf(entries: Camt053Entry[], version: Camt053Version = "camt.053.001.08") {
  const [uploaded] = await upload(office, statementFile(entries, version));
  await drainStatements();
  const statement = await read(office, `/bank_statements/${uploaded.id}`);
  expect(statement.state, JSON.stringify(statement)).toBe("processed");
  return { statement, transactions: (await transactionsOf(office, uploaded.id)).reverse() };
}

/** A booked credit of `amount` whose one detail carries `endToEndId`: a debit's settlement. */
const settlementOf = (amount: string, endToEndId: string, debtorIban?: string) =>
  credit(amount, { endToEndId, debtorIban, debtorName: "Debtor" });

/** A batch entry without details (`Btch/PmtInfId` and its count only). */
const batchEntry = (amount: string, paymentInformationId: string, count: number): Camt053Entry => ({
  amount,
  creditDebit: "credit",
  status: "BOOK",
  bookedOn: "2026-11-20",
  valueDate: "2026-11-20",
  accountServicerReference: unique("ACSR"),
  batch: { paymentInformationId, count },
});

/** A booked debit returning `endToEndId` with `reason`: `amount` is the debit's, the bank's fee included. */
const returnOf = (
  amount: string,
  endToEndId: string,
  reason: string,
  {
    reversal = false,
    bookedOn = RETURNED_ON,
    creditorIban,
  }: { reversal?: boolean; bookedOn?: string; creditorIban?: string } = {},
): Camt053Entry => ({
  amount,
  creditDebit: "debit",
  status: "BOOK",
  bookedOn,
  valueDate: bookedOn,
  accountServicerReference: unique("ACSR"),
  ...(reversal ? { reversal: true } : {}),
  details: [{ endToEndId, returnReason: reason, creditorName: "Debtor", creditorIban }],
});

const invoiceNow = (auth: string, id: string) => read(auth, `/invoices/${id}`);
const paymentsOf = (auth: string, id: string) => read(auth, `/invoices/${id}/payments`);
const balanceOf = (auth: string, id: string) => read(auth, `/invoices/${id}/balance`);
const collectionNow = (collection: any) => read(office, `/direct_debit_collections/${collection.id}`);

/** The customer's payment and invoice.paid events, oldest first: [type, data]. */
async function paymentEvents(auth: string): Promise<[string, any][]> {
  const events = await read(auth, "/events?page_size=100");
  return events
    .filter((e: any) => e.type.startsWith("payment.") || e.type === "invoice.paid")
    .reverse()
    .map((e: any) => [e.type, e.data]);
}

/** Collected, then settled by a statement: the collection, the debit and the settling transaction. */
async function collectedAndPaid(invoice: any, date = dueDate()) {
  const collection = await collect(date);
  const debit = await debitOf(collection, invoice);
  const { transactions } = await statementOf([settlementOf(debit.amount, debit.endToEndId)]);
  return { collection, debit, transaction: transactions[0] };
}

// ---------------------------------------------------------------------------------------------------

describe("POST /direct_debit_collections: the collection date", () => {
  it("201: the envelope holding the collection, its fields in CONTRACT order", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "123.45");
    const date = dueDate();
    const response = await post(date);
    const body = await expectJson(
      response,
      201,
      singlePage("/direct_debit_collections", [
        {
          id: expect.stringMatching(UUID),
          type: "direct_debit_collection",
          collection_date: date,
          message_id: expect.stringMatching(SEPA_ID),
          transactions_count: 1,
          control_sum: "123.45",
          state: "pending",
          created_at: expect.stringMatching(ISO_MS),
        },
      ]),
    );
    const [collection] = body.data;
    expect(Object.keys(collection)).toStrictEqual(COLLECTION_FIELDS);
    expect(await endToEndIds(collection)).toStrictEqual([invoice.number]);
    expect(await read(office, `/direct_debit_collections/${collection.id}`)).toStrictEqual(collection);
  });

  it("the earliest date D-1 allows is taken; the business day before it is too early", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth);
    await dueOn(invoice.id, today());
    const before = await stored();
    // Today (or the next business day when today is closed) is before the earliest under D-1.
    const tooEarly = firstOpenFrom(today());
    expect(tooEarly < earliest()).toBe(true);
    await expectError(await post(tooEarly), 422, {
      code: "validation_failed",
      source: { pointer: "/collection_date" },
      detail: expect.stringContaining(earliest()),
    });
    expect(await stored()).toStrictEqual(before);
    const collection = await collect(earliest());
    expect(collection.collection_date).toBe(earliest());
    expect(await endToEndIds(collection)).toStrictEqual([invoice.number]);
  });

  it("DIRECT_DEBIT_LEAD_DAYS moves the earliest date: 0 allows today's business day, 3 refuses D-1's", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth);
    await dueOn(invoice.id, today());
    const lead3 = earliestCollectionDate(today(), 3);
    await expectError(await post(earliest(), { DIRECT_DEBIT_LEAD_DAYS: "3" }), 422, {
      code: "validation_failed",
      source: { pointer: "/collection_date" },
      detail: expect.stringContaining(lead3),
    });
    const zero = earliestCollectionDate(today(), 0);
    const collection = await collect(zero, { DIRECT_DEBIT_LEAD_DAYS: "0" });
    expect(collection.collection_date).toBe(zero);
  });

  it.each(["Pacific/Kiritimati", "Pacific/Pago_Pago", "Europe/Berlin"])(
    "today is BUSINESS_TIME_ZONE's (%s): its earliest date is accepted, the business day before it is not",
    async (zone) => {
      const zoneToday = businessDay(new Date(), zone);
      const zoneEarliest = earliestCollectionDate(zoneToday, 1);
      let before = addDays(zoneEarliest, -1);
      while (!isTarget2Day(before)) before = addDays(before, -1);
      expect(before >= zoneToday).toBe(true);
      const bindings = { BUSINESS_TIME_ZONE: zone };
      await expectError(await post(before, bindings), 422, {
        code: "validation_failed",
        source: { pointer: "/collection_date" },
      });
      // Accepted: nothing is due, so 409.
      await expectError(await post(zoneEarliest, bindings), 409, { code: "conflict" });
    },
  );

  it("422 for a Saturday, a Sunday, each TARGET2 holiday on a weekday, and nothing stored", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth);
    await dueOn(invoice.id, today());
    const before = await stored();
    const from = addDays(earliest(), 1);
    let saturday = from;
    while (new Date(`${saturday}T00:00:00Z`).getUTCDay() !== 6) saturday = addDays(saturday, 1);
    // The holidays of the next twelve months that fall on a weekday (Good Friday and Easter Monday always do).
    const GOOD_FRIDAY: Record<string, string> = {
      "2026": "2026-04-03",
      "2027": "2027-03-26",
      "2028": "2028-04-14",
      "2029": "2029-03-30",
      "2030": "2030-04-19",
      "2031": "2031-04-11",
    };
    const year = Number(today().slice(0, 4));
    const holidays = [year, year + 1]
      .flatMap((y) => [
        `${y}-01-01`,
        GOOD_FRIDAY[String(y)]!,
        addDays(GOOD_FRIDAY[String(y)]!, 3),
        `${y}-05-01`,
        `${y}-12-25`,
        `${y}-12-26`,
      ])
      .filter((day) => day >= from && day <= addDays(today(), 365))
      .filter((day) => ![0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay()));
    expect(holidays.length).toBeGreaterThanOrEqual(2);
    for (const day of [saturday, addDays(saturday, 1), ...holidays])
      await expectError(await post(day), 422, {
        code: "validation_failed",
        source: { pointer: "/collection_date" },
      });
    expect(await stored()).toStrictEqual(before);
  });

  it.each([
    ["not a date", "27.11.2026"],
    ["no such day", "2027-02-29"],
    ["no such month", "2027-13-01"],
    ["a date-time", "2027-01-04T00:00:00Z"],
    ["a number", 20270104],
    ["null", null],
    ["empty", ""],
    ["30 June has no 31st", "2027-06-31"],
  ])("422 for a malformed collection_date (%s), nothing stored", async (_, date) => {
    // Something to take, were the date accepted.
    const { auth } = await debtor();
    await dueOn((await ddInvoice(auth)).id, today());
    const before = await stored();
    await expectError(await post(date), 422, { code: "validation_failed", source: { pointer: "/collection_date" } });
    expect(await stored()).toStrictEqual(before);
  });

  it("422 without a collection_date, or without a body", async () => {
    await expectError(await call("/direct_debit_collections", { token: office, json: {} }), 422, {
      code: "validation_failed",
      source: { pointer: "/collection_date" },
    });
    const empty = await call("/direct_debit_collections", { token: office, method: "POST" });
    expect([400, 415, 422]).toContain(empty.status);
  });

  it("more than 365 days ahead: 422; the last business day within 365 days is accepted (409: nothing due)", async () => {
    const limit = addDays(today(), 365);
    let lastOpen = limit;
    while (!isTarget2Day(lastOpen)) lastOpen = addDays(lastOpen, -1);
    await expectError(await post(firstOpenFrom(addDays(limit, 1))), 422, {
      code: "validation_failed",
      source: { pointer: "/collection_date" },
    });
    await expectError(await post(firstOpenFrom(addDays(today(), 800))), 422, {
      code: "validation_failed",
      source: { pointer: "/collection_date" },
    });
    await expectError(await post(lastOpen), 409, { code: "conflict" });
  });

  it("401 without a token; 403 without payments:write (GETs need payments:read); nothing stored", async () => {
    const { auth } = await debtor();
    await dueOn((await ddInvoice(auth)).id, today());
    const before = await stored();
    const unauthenticated = await call("/direct_debit_collections", { json: { collection_date: earliest() } });
    expect(unauthenticated.status).toBe(401);
    for (const scope of ["payments:read", "card_orders:write invoices:write fulfilment events:read payments:read"]) {
      const response = await post(earliest(), undefined, await token({ customer_id: undefined, scope }));
      await expectError(response, 403, {
        code: "forbidden",
        source: { header: "Authorization" },
        detail: "The access token lacks the scope payments:write.",
      });
    }
    expect(await stored()).toStrictEqual(before);
    const writer = await token({ customer_id: undefined, scope: "payments:write" });
    for (const path of [
      "/direct_debit_collections",
      `/direct_debit_collections/${crypto.randomUUID()}`,
      `/direct_debit_collections/${crypto.randomUUID()}/document`,
    ])
      await expectError(await call(path, { token: writer }), 403, {
        code: "forbidden",
        source: { header: "Authorization" },
        detail: "The access token lacks the scope payments:read.",
      });
  });
});

describe("POST /direct_debit_collections: what a collection takes", () => {
  it("Idempotency-Key: a retried POST replays the first answer and makes no second collection", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth);
    const date = dueDate();
    const headers = { "Idempotency-Key": unique("collect") };
    const first = await call("/direct_debit_collections", { token: office, json: { collection_date: date }, headers });
    const body = await first.text();
    expect(first.status, body).toBe(201);
    const before = await stored();
    const replay = await call("/direct_debit_collections", { token: office, json: { collection_date: date }, headers });
    expect([replay.status, await replay.text()]).toStrictEqual([201, body]);
    expect(await stored()).toStrictEqual(before);
    await expectError(
      await call("/direct_debit_collections", {
        token: office,
        json: { collection_date: nextOpen(date) },
        headers,
      }),
      422,
      { code: "idempotency_key_reused", source: { header: "Idempotency-Key" } },
    );
    expect(await endToEndIds(JSON.parse(body).data[0])).toStrictEqual([invoice.number]);
  });

  it("409 conflict when nothing is due, and nothing created", async () => {
    const { auth } = await debtor();
    await ddInvoice(auth); // due in 14 days, after the earliest collection date
    const before = await stored();
    await expectError(await post(earliest()), 409, { code: "conflict" });
    expect(await stored()).toStrictEqual(before);
  });

  it("every due open direct-debit invoice, of every customer; not those due later, bank transfers, paid or cancelled ones", async () => {
    const a = await debtor();
    const b = await debtor();
    const date = earliest();
    const dueA = await ddInvoice(a.auth, "10.00");
    const dueA2 = await ddInvoice(a.auth, "20.00");
    const dueB = await ddInvoice(b.auth, "30.00");
    const dueExactly = await ddInvoice(b.auth, "40.00");
    const later = await ddInvoice(a.auth, "50.00");
    const transfer = await invoiceOf(a.auth, "60.00", "bank_transfer");
    const paid = await ddInvoice(a.auth, "70.00");
    const cancelled = await ddInvoice(b.auth, "80.00");
    for (const invoice of [dueA, dueA2, dueB, transfer, paid, cancelled]) await dueOn(invoice.id, addDays(today(), -3));
    await dueOn(dueExactly.id, date);
    await dueOn(later.id, nextOpen(date));
    expect((await call(`/invoices/${paid.id}/pay`, { token: a.auth, method: "POST" })).status).toBe(200);
    expect((await call(`/invoices/${cancelled.id}/cancel`, { token: b.auth, method: "POST" })).status).toBe(200);

    const collection = await collect(date);
    const taken = [dueA, dueA2, dueB, dueExactly];
    expect(await endToEndIds(collection)).toStrictEqual(taken.map((i) => i.number).sort());
    expect(collection.transactions_count).toBe(4);
    expect(collection.control_sum).toBe("100.00");
    // Not while it is pending: a second collection on the same day finds nothing.
    await expectError(await post(date), 409, { code: "conflict" });
    // The one due later is taken by a later collection, alone.
    const second = await collect(nextOpen(date));
    expect(await endToEndIds(second)).toStrictEqual([later.number]);
    expect((await invoiceNow(a.auth, paid.id)).state).toBe("paid");
    expect((await invoiceNow(b.auth, cancelled.id)).state).toBe("cancelled");
  });

  it("an invoice partly paid by a transfer: only its open amount is collected", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "100.00");
    await statementOf([credit("30.00", { unstructured: [`Teilzahlung ${invoice.number}`] })]);
    expect((await balanceOf(auth, invoice.id)).open_amount).toBe("70.00");
    const collection = await collect(dueDate());
    expect(collection.control_sum).toBe("70.00");
    expect((await debitOf(collection, invoice)).amount).toBe("70.00");
  });

  it("two collections made at once never take one invoice twice", async () => {
    const invoices = [];
    for (let i = 0; i < 6; i++) invoices.push(await ddInvoice((await debtor()).auth, `${i + 1}.00`));
    const date = dueDate();
    const responses = await Promise.all([post(date), post(nextOpen(date)), post(date)]);
    const statuses = responses.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      String(statuses),
    ).toBe(true);
    expect(statuses).toContain(201);
    const rows = await env.DB.prepare(
      `SELECT invoice_id, count(*) AS n FROM direct_debits WHERE invoice_id IN (${invoices.map(() => "?").join(",")}) GROUP BY invoice_id`,
    )
      .bind(...invoices.map((i) => i.id))
      .all<{ invoice_id: string; n: number }>();
    expect(rows.results.map((r) => r.n)).toStrictEqual(invoices.map(() => 1));
    // What the created collections' files hold: each invoice once over all of them.
    const created = await Promise.all(
      responses.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as any).data[0]),
    );
    const ids = (await Promise.all(created.map(endToEndIds))).flat().sort();
    expect(ids).toStrictEqual(invoices.map((i) => i.number).sort());
    expect(created.reduce((sum, c) => sum + c.transactions_count, 0)).toBe(6);
  });

  it("an invoice paid in part between the collection's read and its write: 409, nothing collected, nothing held", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "100.00");
    // A transfer's allocation lands just before the collection's write batch, as a concurrent statement run's would.
    const paid = () =>
      env.DB.prepare("UPDATE invoices SET allocated_amount = 3000 WHERE id = ?").bind(invoice.id).run();
    const DB = {
      withSession(start: D1SessionBookmark | D1SessionConstraint) {
        const session = env.DB.withSession(start);
        return {
          prepare: (query: string) => session.prepare(query),
          async batch(statements: D1PreparedStatement[]) {
            await paid();
            return session.batch(statements);
          },
          getBookmark: () => session.getBookmark(),
        };
      },
    } as unknown as D1Database;
    const before = await stored();
    await expectError(await post(dueDate(), { DB }), 409, { code: "conflict" });
    expect(await stored()).toStrictEqual(before);
    const row = await env.DB.prepare("SELECT pending_collection FROM invoices WHERE id = ?").bind(invoice.id).first();
    expect(row).toStrictEqual({ pending_collection: null });
    // Asked again, it collects what is open now.
    expect((await collect(dueDate())).control_sum).toBe("70.00");
  });
});

describe("the debits a collection writes", () => {
  it("FRST for the first collection under a mandate reference (all its invoices in it), RCUR afterwards, even while pending", async () => {
    const { auth, profile } = await debtor();
    const first = await ddInvoice(auth, "11.00");
    const alsoFirst = await ddInvoice(auth, "12.00");
    const date = dueDate();
    const collection = await collect(date);
    const { debits, blocks } = await documentOf(collection);
    expect(debits.map((d) => [d.endToEndId, d.sequence]).sort()).toStrictEqual(
      [first, alsoFirst].map((i) => [i.number, "FRST"]).sort(),
    );
    expect(blocks).toHaveLength(1);
    expect(textAt(blocks[0], "PmtInfId")).toBe(`${collection.message_id}-FRST`);
    // The first collection is still pending: the mandate has been collected under, so RCUR.
    const later = await ddInvoice(auth, "13.00");
    const second = await collect(nextOpen(date));
    const debit = await debitOf(second, later);
    expect([debit.endToEndId, debit.sequence, debit.mandateId]).toStrictEqual([
      later.number,
      "RCUR",
      profile.direct_debit_mandate_reference,
    ]);
    expect(debit.paymentInformationId).toBe(`${second.message_id}-RCUR`);
  });

  it("one file, two blocks: FRST first, RCUR second, each with its own sums", async () => {
    const known = await debtor();
    const fresh = await debtor();
    const date = dueDate();
    // `known` has been collected under before; `fresh` never.
    const earlier = await ddInvoice(known.auth, "1.00");
    await dueOn(earlier.id, today());
    await collect(earliest());
    const rcur = await ddInvoice(known.auth, "20.00");
    const frst1 = await ddInvoice(fresh.auth, "30.00");
    const frst2 = await ddInvoice(fresh.auth, "40.50");
    const collection = await collect(date);
    const { blocks, debits, initiation } = await documentOf(collection);
    expect(blocks.map((b) => textAt(b, "PmtTpInf/SeqTp"))).toStrictEqual(["FRST", "RCUR"]);
    expect(blocks.map((b) => [textAt(b, "NbOfTxs"), textAt(b, "CtrlSum")])).toStrictEqual([
      ["2", "70.50"],
      ["1", "20.00"],
    ]);
    expect(debits.map((d) => [d.sequence, d.endToEndId])).toStrictEqual([
      ...[frst1, frst2].map((i) => ["FRST", i.number]).sort(),
      ["RCUR", rcur.number],
    ]);
    expect([textAt(initiation, "GrpHdr/NbOfTxs"), textAt(initiation, "GrpHdr/CtrlSum")]).toStrictEqual(["3", "90.50"]);
    expect([collection.transactions_count, collection.control_sum]).toStrictEqual([3, "90.50"]);
  });

  it("per debit: end-to-end id, amount, mandate reference and signature date, debtor agent, name, IBAN, RF reference", async () => {
    const withBic = await debtor({
      direct_debit_bic: "COBADEFFXXX",
      direct_debit_mandate_signed_on: "2025-03-17",
      direct_debit_mandate_reference: `M/${unique("x").slice(-12)}:(1).,'+-?`,
    });
    const withoutBic = await debtor({ direct_debit_bic: null });
    const a = await ddInvoice(withBic.auth, "17.30");
    const b = await ddInvoice(withoutBic.auth, "9.99");
    const collection = await collect(dueDate());
    const da = await debitOf(collection, a);
    const db = await debitOf(collection, b);
    expect(da).toMatchObject({
      endToEndId: a.number,
      amount: "17.30",
      currency: "EUR",
      mandateId: withBic.profile.direct_debit_mandate_reference, // an id: never changed
      signedOn: "2025-03-17",
      agentBic: "COBADEFFXXX",
      agentOther: undefined,
      name: "Mueller + Soehne Gastronomie GmbH",
      address: undefined,
      iban: withBic.profile.direct_debit_iban,
      referenceType: "SCOR",
      reference: rfReference(a.number),
    });
    expect(da.amendment ?? "false").toBe("false");
    expect(da.originalIban).toBeUndefined();
    expect(db).toMatchObject({
      endToEndId: b.number,
      amount: "9.99",
      mandateId: withoutBic.profile.direct_debit_mandate_reference,
      signedOn: newBillingProfile.direct_debit_mandate_signed_on,
      agentBic: undefined,
      agentOther: "NOTPROVIDED",
      iban: withoutBic.profile.direct_debit_iban,
      reference: rfReference(b.number),
    });
  });

  it("names transliterated into the SEPA Latin set (debtor, creditor, initiating party), other scripts dropped", async () => {
    const { auth } = await debtor({ legal_name: "Ærø Bäckerei Grün & Söhne 東京 Ωmega" });
    const invoice = await ddInvoice(auth);
    const collection = await collect(dueDate(), { CREDITOR_NAME: "Großhändler Voucher & Co. KG" });
    const { initiation, blocks } = await documentOf(collection);
    const debit = await debitOf(collection, invoice);
    expect(debit.name).toMatch(SEPA_TEXT);
    expect(debit.name).toContain("Baeckerei Gruen + Soehne");
    expect(debit.name).not.toMatch(/ {2}|^ | $/);
    expect(textAt(initiation, "GrpHdr/InitgPty/Nm")).toBe("Grosshaendler Voucher + Co. KG");
    expect(textAt(blocks[0], "Cdtr/Nm")).toBe("Grosshaendler Voucher + Co. KG");
  });

  it("a name longer than 70 characters is cut to 70", async () => {
    const { auth } = await debtor({ legal_name: `Kantinenbetriebsgesellschaft ${"Süd".repeat(30)} mbH` });
    const invoice = await ddInvoice(auth);
    const debit = await debitOf(await collect(dueDate()), invoice);
    expect(debit.name.length).toBeLessThanOrEqual(70);
    expect(debit.name).toMatch(/^Kantinenbetriebsgesellschaft SuedSued/);
  });

  it("the debtor's postal address only for an account outside the EEA (a Swiss IBAN, with its BIC)", async () => {
    const swiss = await debtor({
      legal_name: "Käserei Zürich AG",
      street: "Bahnhofstraße 1",
      postcode: "8001",
      city: "Zürich",
      country_code: "CH",
      vat_id: null,
      leitweg_id: null,
      direct_debit_iban: "CH9300762011623852957",
      direct_debit_bic: "UBSWCHZH80A",
    });
    const german = await debtor();
    const ch = await ddInvoice(swiss.auth);
    const de = await ddInvoice(german.auth);
    const collection = await collect(dueDate());
    const debit = await debitOf(collection, ch);
    expect(debit).toMatchObject({
      iban: "CH9300762011623852957",
      agentBic: "UBSWCHZH80A",
      name: "Kaeserei Zuerich AG",
      address: { StrtNm: "Bahnhofstrasse 1", BldgNb: undefined, PstCd: "8001", TwnNm: "Zuerich", Ctry: "CH" },
    });
    expect((await debitOf(collection, de)).address).toBeUndefined();
  });

  it("the creditor: name, IBAN, BIC, creditor id under SEPA; NOTPROVIDED when CREDITOR_BIC is empty", async () => {
    const { auth } = await debtor();
    const a = await ddInvoice(auth);
    const withBic = await collect(dueDate());
    const block = (await documentOf(withBic)).blocks[0];
    expect(textAt(block, "Cdtr/Nm")).toBe("Voucher Cards GmbH");
    expect(textAt(block, "CdtrAcct/Id/IBAN")).toBe(env.CREDITOR_IBAN);
    expect(textAt(block, "CdtrAgt/FinInstnId/BICFI")).toBe(env.CREDITOR_BIC);
    expect(textAt(block, "CdtrSchmeId/Id/PrvtId/Othr/Id")).toBe(env.CREDITOR_SEPA_CREDITOR_ID);
    expect(textAt(block, "CdtrSchmeId/Id/PrvtId/Othr/SchmeNm/Prtry")).toBe("SEPA");
    expect((await debitOf(withBic, a)).endToEndId).toBe(a.number);

    const b = await ddInvoice(auth);
    const without = await collect(dueDate(), { CREDITOR_BIC: "" });
    const other = (await documentOf(without)).blocks[0];
    expect(textAt(other, "CdtrAgt/FinInstnId/BICFI")).toBeUndefined();
    expect(textAt(other, "CdtrAgt/FinInstnId/Othr/Id")).toBe("NOTPROVIDED");
    expect((await debitOf(without, b)).endToEndId).toBe(b.number);
  });

  it("the amendment indicator with the original IBAN when the IBAN changed under the same mandate reference", async () => {
    const { auth, profile } = await debtor();
    const first = await ddInvoice(auth);
    const date = dueDate();
    const one = await collect(date);
    expect((await debitOf(one, first)).amendment ?? "false").toBe("false");
    // The customer moves to another bank; the mandate reference stays.
    const newIban = germanIban(9_000_000 + accounts++);
    await storeBillingProfile(auth, { ...profile, direct_debit_iban: newIban });
    const second = await ddInvoice(auth);
    const two = await collect(nextOpen(date));
    expect(await debitOf(two, second)).toMatchObject({
      sequence: "RCUR",
      mandateId: profile.direct_debit_mandate_reference,
      iban: newIban,
      amendment: "true",
      originalIban: profile.direct_debit_iban,
    });
    // Since its last collection the IBAN has not changed again: no amendment.
    const third = await ddInvoice(auth);
    const three = await collect(nextOpen(nextOpen(date)));
    const debit = await debitOf(three, third);
    expect([debit.iban, debit.amendment ?? "false", debit.originalIban]).toStrictEqual([newIban, "false", undefined]);
  });

  it("end-to-end id: the invoice number; -R2, -R3 when it is collected again after AM04, as RCUR", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "45.00");
    const date = dueDate();
    const { debit } = await collectedAndPaid(invoice, date);
    expect([debit.endToEndId, debit.sequence]).toStrictEqual([invoice.number, "FRST"]);
    await statementOf([returnOf("45.00", invoice.number, "AM04")]);
    expect((await invoiceNow(auth, invoice.id)).state).toBe("open");

    const again = await collectedAndPaid(invoice, nextOpen(date));
    expect([again.debit.endToEndId, again.debit.sequence, again.debit.amount]).toStrictEqual([
      `${invoice.number}-R2`,
      "RCUR",
      "45.00",
    ]);
    expect((await invoiceNow(auth, invoice.id)).state).toBe("paid");
    await statementOf([returnOf("45.00", `${invoice.number}-R2`, "AM04")]);
    const third = await collect(nextOpen(nextOpen(date)));
    expect(await debitOf(third, invoice)).toMatchObject({ endToEndId: `${invoice.number}-R3`, sequence: "RCUR" });
  });

  it("a return of an unpaid (pending) debit with AM04: collected again with -R2", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "8.00");
    const date = dueDate();
    const collection = await collect(date);
    await statementOf([returnOf("8.00", invoice.number, "AM04")]);
    expect(await paymentsOf(auth, invoice.id)).toStrictEqual([]);
    expect((await collectionNow(collection)).state).toBe("settled");
    const again = await collect(nextOpen(date));
    expect(await debitOf(again, invoice)).toMatchObject({ endToEndId: `${invoice.number}-R2`, sequence: "RCUR" });
  });

  it.each(["MD01", "MD06", "AC04", "MS02"])(
    "after %s the invoice is held until the profile names another IBAN: then RCUR, -R2, with the amendment",
    async (reason) => {
      const { auth, profile } = await debtor();
      const invoice = await ddInvoice(auth, "19.00");
      const date = dueDate();
      await collectedAndPaid(invoice, date);
      await statementOf([returnOf("19.00", invoice.number, reason)]);
      expect((await invoiceNow(auth, invoice.id)).state).toBe("open");
      await expectError(await post(nextOpen(date)), 409, { code: "conflict" });
      // Another name or BIC is not another mandate.
      await storeBillingProfile(auth, { ...profile, legal_name: "Neuer Name GmbH", direct_debit_bic: "COBADEFFXXX" });
      await expectError(await post(nextOpen(date)), 409, { code: "conflict" });
      const newIban = germanIban(8_000_000 + accounts++);
      await storeBillingProfile(auth, { ...profile, direct_debit_iban: newIban });
      const again = await collect(nextOpen(date));
      expect(await debitOf(again, invoice)).toMatchObject({
        endToEndId: `${invoice.number}-R2`,
        sequence: "RCUR",
        mandateId: profile.direct_debit_mandate_reference,
        iban: newIban,
        amendment: "true",
        originalIban: profile.direct_debit_iban,
      });
    },
  );

  it("after MD01, then the new IBAN's AM04: -R3 debits the new IBAN, never again the one MD01 stopped", async () => {
    const { auth, profile } = await debtor();
    const invoice = await ddInvoice(auth, "16.00");
    const date = dueDate();
    await collectedAndPaid(invoice, date);
    await statementOf([returnOf("16.00", invoice.number, "MD01")]);
    const newIban = germanIban(5_000_000 + accounts++);
    await storeBillingProfile(auth, { ...profile, direct_debit_iban: newIban });
    const second = await collectedAndPaid(invoice, nextOpen(date));
    expect([second.debit.endToEndId, second.debit.iban]).toStrictEqual([`${invoice.number}-R2`, newIban]);
    await statementOf([returnOf("16.00", `${invoice.number}-R2`, "AM04")]);
    const third = await collect(nextOpen(nextOpen(date)));
    const debit = await debitOf(third, invoice);
    expect([debit.endToEndId, debit.sequence, debit.iban, debit.amendment ?? "false"]).toStrictEqual([
      `${invoice.number}-R3`,
      "RCUR",
      newIban,
      "false",
    ]);
  });

  it("after MD01 another mandate reference releases the invoice: FRST under the new mandate, -R2", async () => {
    const { auth, profile } = await debtor();
    const invoice = await ddInvoice(auth, "21.00");
    const date = dueDate();
    await collectedAndPaid(invoice, date);
    await statementOf([returnOf("21.00", invoice.number, "MD01")]);
    await expectError(await post(nextOpen(date)), 409, { code: "conflict" });
    const reference = unique("MNDT");
    await storeBillingProfile(auth, {
      ...profile,
      direct_debit_mandate_reference: reference,
      direct_debit_mandate_signed_on: today(),
    });
    const again = await collect(nextOpen(date));
    const debit = await debitOf(again, invoice);
    expect(debit).toMatchObject({
      endToEndId: `${invoice.number}-R2`,
      sequence: "FRST",
      mandateId: reference,
      signedOn: today(),
      iban: profile.direct_debit_iban,
    });
    expect(debit.amendment ?? "false").toBe("false");
  });

  it("an expired mandate (no collection for 36 months) is left out until the profile names a new one", async () => {
    const date = dueDate();
    const monthsBefore = (months: number) => {
      const [y, m, d] = date.split("-").map(Number) as [number, number, number];
      return new Date(Date.UTC(y, m - 1 - months, d)).toISOString().slice(0, 10);
    };
    const expired = await debtor({ direct_debit_mandate_signed_on: "2021-05-03" });
    const valid = await debtor({ direct_debit_mandate_signed_on: "2021-05-03" });
    const neverUsed = await debtor({ direct_debit_mandate_signed_on: monthsBefore(37) });
    // Their earlier debits, stored as a collection long ago would have stored them.
    await oldDebit(expired, monthsBefore(37));
    await oldDebit(valid, monthsBefore(35));
    const e = await ddInvoice(expired.auth);
    const v = await ddInvoice(valid.auth);
    const n = await ddInvoice(neverUsed.auth);

    const collection = await collect(date);
    expect(await endToEndIds(collection)).toStrictEqual([v.number]);
    expect((await debitOf(collection, v)).sequence).toBe("RCUR");
    await expectError(await post(nextOpen(date)), 409, { code: "conflict" });

    for (const { auth, profile } of [expired, neverUsed])
      await storeBillingProfile(auth, {
        ...profile,
        direct_debit_mandate_reference: unique("MNDT"),
        direct_debit_mandate_signed_on: today(),
      });
    const renewed = await collect(nextOpen(date));
    expect(await endToEndIds(renewed)).toStrictEqual([e.number, n.number].sort());
    for (const invoice of [e, n]) expect((await debitOf(renewed, invoice)).sequence).toBe("FRST");
  });
});

describe("what the bank would refuse is never written", () => {
  it("a debtor whose name is all in another script (a Greek company) still gets a name in the file", async () => {
    const { auth } = await debtor({
      legal_name: "Αθηναϊκή Τροφοδοσία",
      country_code: "GR",
      vat_id: null,
      leitweg_id: null,
    });
    const invoice = await ddInvoice(auth);
    const debit = await debitOf(await collect(dueDate()), invoice);
    // Nm is Max140Text: at least one character; EPC wants a name the debtor's bank can show.
    expect(debit.name).toMatch(/[A-Za-z]{2}/);
    expect(debit.name).toMatch(SEPA_TEXT);
  });

  it("a malformed CREDITOR_SEPA_CREDITOR_ID (wrong check digits) makes no collection", async () => {
    const { auth } = await debtor();
    await dueOn((await ddInvoice(auth)).id, today());
    const before = await stored();
    const response = await post(earliest(), { CREDITOR_SEPA_CREDITOR_ID: "DE00ZZZ09999999999" });
    expect(response.status).not.toBe(201);
    expect(await stored()).toStrictEqual(before);
  });

  it("a debtor IBAN that fails its check (a profile stored before the rule) is never written into a file", async () => {
    const { auth } = await debtor({ direct_debit_iban: "DE00370400440532013000" });
    const bad = await ddInvoice(auth);
    const { auth: other } = await debtor();
    const good = await ddInvoice(other);
    const collection = await collect(dueDate());
    expect(await endToEndIds(collection)).toStrictEqual([good.number]);
    expect((await documentOf(collection)).xml).not.toContain("DE00370400440532013000");
    expect((await invoiceNow(auth, bad.id)).state).toBe("open");
  });

  it("a mandate reference outside the SEPA set (a profile stored before the rule) is never written, nor changed", async () => {
    const { auth } = await debtor({ direct_debit_mandate_reference: "MANDAT Ä/1" });
    const bad = await ddInvoice(auth);
    const { auth: other } = await debtor();
    const good = await ddInvoice(other);
    const collection = await collect(dueDate());
    expect(await endToEndIds(collection)).toStrictEqual([good.number]);
    expect((await documentOf(collection)).xml).not.toMatch(/MANDAT/);
    expect((await invoiceNow(auth, bad.id)).state).toBe("open");
  });

  it("an invoice issued before part 13 (no buyer kept): collected under the profile's mandate, its file written", async () => {
    const { auth, profile } = await debtor();
    const invoice = await ddInvoice(auth, "14.00");
    await env.DB.prepare("UPDATE invoices SET buyer = NULL WHERE id = ?").bind(invoice.id).run();
    const collection = await collect(dueDate());
    const debit = await debitOf(collection, invoice);
    expect([debit.mandateId, debit.iban, debit.amount]).toStrictEqual([
      profile.direct_debit_mandate_reference,
      profile.direct_debit_iban,
      "14.00",
    ]);
    expect(debit.name).toMatch(/\S/);
  });
});

describe("the mandate a debit is collected under", () => {
  it("the one the invoice kept when it was issued, not the profile's now", async () => {
    const { auth, profile } = await debtor();
    const invoice = await ddInvoice(auth);
    await storeBillingProfile(auth, { ...profile, direct_debit_iban: germanIban(6_000_000 + accounts++) });
    const debit = await debitOf(await collect(dueDate()), invoice);
    expect([debit.iban, debit.mandateId, debit.sequence]).toStrictEqual([
      profile.direct_debit_iban,
      profile.direct_debit_mandate_reference,
      "FRST",
    ]);
  });

  it("after MD01 (no valid mandate) the other open invoices under that mandate and account are held too", async () => {
    const { auth } = await debtor();
    const returned = await ddInvoice(auth, "10.00");
    const sibling = await ddInvoice(auth, "20.00");
    await dueOn(sibling.id, "2999-12-31");
    const date = dueDate();
    await collectedAndPaid(returned, date);
    await statementOf([returnOf("10.00", returned.number, "MD01")]);
    await dueOn(sibling.id, today());
    // The mandate is void: debiting the sibling under it would come back as MD01 again, with a fee.
    await expectError(await post(nextOpen(date)), 409, { code: "conflict" });
  });
});

/**
 * A paid direct debit of `who`'s mandate collected on `day`, stored straight into D1 as an earlier
 * collection would have stored it (with an invoice of its own, paid).
 */
async function oldDebit(who: Awaited<ReturnType<typeof debtor>>, day: string) {
  const invoice = await ddInvoice(who.auth, "5.00");
  expect((await call(`/invoices/${invoice.id}/pay`, { token: who.auth, method: "POST" })).status).toBe(200);
  const id = crypto.randomUUID();
  const at = `${day}T08:00:00.000Z`;
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO direct_debit_collections (id, collection_date, message_id, transactions_count, control_sum, state, creditor, created_at)
       VALUES (?, ?, ?, 1, 500, 'settled', ?, ?)`,
    ).bind(id, day, messageIdOf(id), JSON.stringify({ name: "Voucher Cards GmbH" }), at),
    env.DB.prepare(
      `INSERT INTO direct_debits (id, collection_id, invoice_id, customer_id, end_to_end_id, amount, sequence_type,
         collection_date, mandate_reference, mandate_signed_on, debtor_iban, debtor, debtor_bic, original_debtor_iban,
         state, return_reason, created_at)
       VALUES (?, ?, ?, ?, ?, 500, 'FRST', ?, ?, ?, ?, '{}', NULL, NULL, 'paid', NULL, ?)`,
    ).bind(
      crypto.randomUUID(),
      id,
      invoice.id,
      who.customerId,
      invoice.number,
      day,
      who.profile.direct_debit_mandate_reference,
      who.profile.direct_debit_mandate_signed_on,
      who.profile.direct_debit_iban,
      at,
    ),
  ]);
}

describe("GET /direct_debit_collections and /direct_debit_collections/{id}", () => {
  it("the list, newest first, in the envelope; a collection by id; 404 for an unknown one", async () => {
    const { auth } = await debtor();
    await ddInvoice(auth);
    const date = dueDate();
    const older = await collect(date);
    await ddInvoice(auth);
    const newer = await collect(nextOpen(date));
    const response = await call("/direct_debit_collections?page_size=100", { token: office });
    const body = await expectJson(response, 200, expect.anything());
    expect(body.data.map((c: any) => c.id).slice(0, 2)).toStrictEqual([newer.id, older.id]);
    expect(body.meta.total_entries).toBe(body.data.length);
    expect(body.data.slice(0, 2)).toStrictEqual([newer, older]);
    for (const c of body.data) expect(Object.keys(c)).toStrictEqual(COLLECTION_FIELDS);
    await expectJson(await call(`/direct_debit_collections/${older.id}`, { token: office }), 200, { data: older });
    // Pages of one, as part 4 pages every list.
    const page = await expectJson(
      await call("/direct_debit_collections?page_size=1", { token: office }),
      200,
      expect.anything(),
    );
    expect(page.data).toStrictEqual([newer]);
    expect(page.links.next).toEqual(listLink("/direct_debit_collections?page_size=1&page=2", true));
    for (const id of [crypto.randomUUID(), "nope", "1%20OR%201%3D1", "%F0%9F%92%B8", "x".repeat(300)])
      for (const path of [`/direct_debit_collections/${id}`, `/direct_debit_collections/${id}/document`])
        await expectError(await call(path, { token: office }), 404, { code: "not_found" });
    // A wrong method on a known path: 405, whether or not the id exists.
    for (const id of [older.id, crypto.randomUUID()]) {
      expect((await call(`/direct_debit_collections/${id}`, { token: office, method: "DELETE" })).status).toBe(405);
      expect((await call(`/direct_debit_collections/${id}/document`, { token: office, method: "POST" })).status).toBe(
        405,
      );
    }
  });
});

describe("GET /direct_debit_collections/{id}/document: the pain.008.001.08 file", () => {
  it("200 application/xml, an attachment named after the message id, a strong ETag; 304 on If-None-Match", async () => {
    const { auth } = await debtor();
    await ddInvoice(auth);
    const collection = await collect(dueDate());
    const path = `/direct_debit_collections/${collection.id}/document`;
    const first = await call(path, { token: office });
    const bytes = await first.text();
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toMatch(/^application\/xml(; ?charset=utf-8)?$/i);
    expect(first.headers.get("Content-Disposition")).toBe(`attachment; filename="${collection.message_id}.xml"`);
    const etag = first.headers.get("ETag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(bytes.startsWith("<?xml")).toBe(true);

    const second = await call(path, { token: office });
    expect(await second.text()).toBe(bytes);
    expect(second.headers.get("ETag")).toBe(etag);
    expect(second.headers.get("Content-Disposition")).toBe(`attachment; filename="${collection.message_id}.xml"`);

    const notModified = await call(path, { token: office, headers: { "If-None-Match": etag } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe("");
    expect(notModified.headers.get("ETag")).toBe(etag);
    const other = await call(path, { token: office, headers: { "If-None-Match": '"something-else"' } });
    expect(other.status).toBe(200);
    expect(await other.text()).toBe(bytes);
  });

  it("the same bytes on every request: kept in R2, whatever changes after it was written", async () => {
    const { auth, profile } = await debtor();
    const invoice = await ddInvoice(auth, "33.00");
    const collection = await collect(dueDate());
    // First asked for after the seller's variables changed: the file says what they said at collection time.
    const { xml, blocks } = await documentOf(collection, { CREDITOR_NAME: "Ganz Andere GmbH", CREDITOR_BIC: "" });
    expect(textAt(blocks[0], "Cdtr/Nm")).toBe("Voucher Cards GmbH");
    expect(textAt(blocks[0], "CdtrAgt/FinInstnId/BICFI")).toBe(env.CREDITOR_BIC);
    const listed = await env.DOCUMENTS.list();
    expect(listed.objects.some((o) => o.key.includes(collection.id))).toBe(true);
    // The debtor's data changes, the invoice is paid: the file does not.
    await storeBillingProfile(auth, {
      ...profile,
      legal_name: "Umbenannt AG",
      direct_debit_iban: germanIban(7_000_001),
    });
    await statementOf([settlementOf("33.00", invoice.number)]);
    expect((await documentOf(collection)).xml).toBe(xml);
    expect(
      (await documentOf(collection, { CREDITOR_NAME: "Noch Eine GmbH", CREDITOR_IBAN: "DE89370400440532013000" })).xml,
    ).toBe(xml);
  });

  it("SEPA Core, the sums add up (file and each block), every id within 35 characters of the SEPA set", async () => {
    const known = await debtor();
    const earlier = await ddInvoice(known.auth, "1.00");
    await dueOn(earlier.id, today());
    await collect(earliest());
    const amounts = ["1.01", "19.99", "100.00", "2500.50", "7.07", "33.33", "999.99"];
    const invoices = [];
    for (const [i, amount] of amounts.entries()) {
      const who = i < 3 ? known : await debtor({ legal_name: `Kantine Nr. ${i} Müller & Co.` });
      invoices.push(await ddInvoice(who.auth, amount));
    }
    const date = dueDate();
    const collection = await collect(date);
    const { document, initiation, blocks, debits, xml } = await documentOf(collection);
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>/);
    expect(document.name).toBe("Document");
    expect(document.attributes.xmlns).toBe("urn:iso:std:iso:20022:tech:xsd:pain.008.001.08");
    const cents = (texts: (string | undefined)[]) => texts.reduce((sum, t) => sum + toCents(t!), 0);

    expect(textAt(initiation, "GrpHdr/MsgId")).toBe(collection.message_id);
    expect(textAt(initiation, "GrpHdr/CreDtTm")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(Number(textAt(initiation, "GrpHdr/NbOfTxs"))).toBe(debits.length);
    expect(textAt(initiation, "GrpHdr/CtrlSum")).toBe(toMoney(cents(debits.map((d) => d.amount))));
    expect(textAt(initiation, "GrpHdr/InitgPty/Nm")).toBe("Voucher Cards GmbH");
    expect(debits.length).toBe(amounts.length);
    expect(collection.transactions_count).toBe(amounts.length);
    expect(collection.control_sum).toBe(toMoney(cents(amounts)));
    expect(debits.map((d) => d.amount).sort()).toStrictEqual([...amounts].sort());

    expect(blocks.map((b) => textAt(b, "PmtTpInf/SeqTp"))).toStrictEqual(["FRST", "RCUR"]);
    for (const block of blocks) {
      const inBlock = all(block, "DrctDbtTxInf").map((tx) => textAt(tx, "InstdAmt"));
      expect(Number(textAt(block, "NbOfTxs"))).toBe(inBlock.length);
      expect(textAt(block, "CtrlSum")).toBe(toMoney(cents(inBlock)));
      expect(textAt(block, "PmtMtd")).toBe("DD");
      expect(textAt(block, "PmtTpInf/SvcLvl/Cd")).toBe("SEPA");
      expect(textAt(block, "PmtTpInf/LclInstrm/Cd")).toBe("CORE");
      expect(textAt(block, "ReqdColltnDt")).toBe(date);
      expect(textAt(block, "ChrgBr")).toBe("SLEV");
      expect(textAt(block, "PmtInfId")).toBe(`${collection.message_id}-${textAt(block, "PmtTpInf/SeqTp")}`);
    }
    expect(all(blocks[1], "DrctDbtTxInf")).toHaveLength(3);

    const ids = [
      textAt(initiation, "GrpHdr/MsgId")!,
      ...blocks.map((b) => textAt(b, "PmtInfId")!),
      ...debits.flatMap((d) => [d.endToEndId, d.mandateId]),
      textAt(blocks[0], "CdtrSchmeId/Id/PrvtId/Othr/Id")!,
    ];
    for (const id of ids) expect(id).toMatch(SEPA_ID);
    expect(new Set(debits.map((d) => d.endToEndId)).size).toBe(debits.length);
    for (const d of debits) {
      expect(d.name).toMatch(SEPA_TEXT);
      expect(d.amount).toMatch(/^\d+\.\d{2}$/);
      expect(d.reference).toBe(rfReference(d.endToEndId));
    }
    // Every text in the file is in the SEPA set (the XML declaration aside).
    const texts: string[] = [];
    const walk = (node: XmlNode) => {
      if (node.children.length === 0) texts.push(node.text);
      node.children.forEach(walk);
    };
    walk(document);
    for (const text of texts) expect(text).toMatch(SEPA_TEXT);
  });
});

describe("settlement, from camt.053", () => {
  it.each(VERSIONS)(
    "%s: a credit whose end-to-end id is a pending debit's pays that invoice; the collection settles when all are paid",
    async (version) => {
      const a = await debtor();
      const b = await debtor();
      const first = await ddInvoice(a.auth, "25.50");
      const second = await ddInvoice(b.auth, "74.50");
      const collection = await collect(dueDate());

      const { statement, transactions } = await statementOf([settlementOf("25.50", first.number)], version);
      expect(statement).toMatchObject({ transactions_count: 1, matched_count: 1, unmatched_count: 0 });
      const [tx] = transactions;
      expect(tx).toMatchObject({
        credit_debit: "credit",
        amount: "25.50",
        end_to_end_id: first.number,
        state: "matched",
        allocated_amount: "25.50",
        unapplied_amount: "0.00",
        customer: a.customerId,
      });
      const [payment] = await paymentsOf(a.auth, first.id);
      expect(payment).toStrictEqual({
        id: expect.any(String),
        type: "payment",
        invoice_id: first.id,
        invoice_number: first.number,
        amount: "25.50",
        method: "direct_debit",
        bank_transaction_id: tx.id,
        booked_on: "2026-11-20",
        returned_at: null,
        return_reason: null,
        created_at: expect.stringMatching(ISO_MS),
      });
      const paid = await invoiceNow(a.auth, first.id);
      expect([paid.state, paid.paid_at]).toStrictEqual(["paid", expect.stringMatching(ISO_MS)]);
      expect(await balanceOf(a.auth, first.id)).toMatchObject({ allocated_amount: "25.50", open_amount: "0.00" });
      expect(await paymentEvents(a.auth)).toStrictEqual([
        ["payment.received", payment],
        ["invoice.paid", paid],
      ]);
      expect((await collectionNow(collection)).state).toBe("pending");

      await statementOf([settlementOf("74.50", second.number)], version);
      expect((await invoiceNow(b.auth, second.id)).state).toBe("paid");
      expect((await collectionNow(collection)).state).toBe("settled");
    },
  );

  it.each(VERSIONS)(
    "%s: a batch entry with one detail per debit settles each as its own transaction",
    async (version) => {
      const a = await debtor();
      const b = await debtor();
      const first = await ddInvoice(a.auth, "10.00");
      const second = await ddInvoice(b.auth, "15.00");
      const collection = await collect(dueDate());
      const entry: Camt053Entry = {
        ...batchEntry("25.00", `${collection.message_id}-FRST`, 2),
        details: [
          { amount: "10.00", endToEndId: first.number, accountServicerReference: unique("D") },
          { amount: "15.00", endToEndId: second.number, accountServicerReference: unique("D") },
        ],
      };
      const { transactions } = await statementOf([entry], version);
      expect(transactions.map((t: any) => [t.amount, t.state, t.end_to_end_id])).toStrictEqual([
        ["10.00", "matched", first.number],
        ["15.00", "matched", second.number],
      ]);
      const [p1] = await paymentsOf(a.auth, first.id);
      const [p2] = await paymentsOf(b.auth, second.id);
      expect([p1.method, p1.bank_transaction_id, p2.method, p2.bank_transaction_id]).toStrictEqual([
        "direct_debit",
        transactions[0].id,
        "direct_debit",
        transactions[1].id,
      ]);
      expect((await collectionNow(collection)).state).toBe("settled");
    },
  );

  it.each(VERSIONS)(
    "%s: a batch entry without details naming a block, of its control sum, pays every invoice of the block as one transaction",
    async (version) => {
      const known = await debtor();
      const earlier = await ddInvoice(known.auth, "1.00");
      await dueOn(earlier.id, today());
      await collect(earliest());
      const a = await debtor();
      const b = await debtor();
      const frst = [await ddInvoice(a.auth, "12.34"), await ddInvoice(b.auth, "56.78")];
      const rcur = await ddInvoice(known.auth, "9.00");
      const collection = await collect(dueDate());

      const { transactions } = await statementOf([batchEntry("69.12", `${collection.message_id}-FRST`, 2)], version);
      expect(transactions).toHaveLength(1);
      const [tx] = transactions;
      expect(tx).toMatchObject({
        amount: "69.12",
        state: "matched",
        allocated_amount: "69.12",
        unapplied_amount: "0.00",
        // A block of two customers is neither's.
        customer: null,
      });
      for (const [invoice, who, amount] of [
        [frst[0], a, "12.34"],
        [frst[1], b, "56.78"],
      ] as const) {
        const payments = await paymentsOf(who.auth, invoice.id);
        expect(payments.map((p: any) => [p.amount, p.method, p.bank_transaction_id])).toStrictEqual([
          [amount, "direct_debit", tx.id],
        ]);
        expect((await invoiceNow(who.auth, invoice.id)).state).toBe("paid");
        expect((await paymentEvents(who.auth)).map(([type]) => type)).toStrictEqual([
          "payment.received",
          "invoice.paid",
        ]);
      }
      // The RCUR block is not paid by the FRST block's credit.
      expect((await invoiceNow(known.auth, rcur.id)).state).toBe("open");
      expect((await collectionNow(collection)).state).toBe("pending");
      const { transactions: rcurPaid } = await statementOf(
        [batchEntry("9.00", `${collection.message_id}-RCUR`, 1)],
        version,
      );
      // A block of one customer's debits is theirs.
      expect(rcurPaid[0].customer).toBe(known.customerId);
      expect((await invoiceNow(known.auth, rcur.id)).state).toBe("paid");
      expect((await collectionNow(collection)).state).toBe("settled");
    },
  );

  it("a batch entry of another amount than the block's control sum settles nothing: part 15's rules apply (unmatched)", async () => {
    const a = await debtor();
    const b = await debtor();
    const first = await ddInvoice(a.auth, "20.00");
    const second = await ddInvoice(b.auth, "30.00");
    const collection = await collect(dueDate());
    const block = `${collection.message_id}-FRST`;
    for (const amount of ["49.99", "50.01"]) {
      const { transactions } = await statementOf([batchEntry(amount, block, 2)]);
      expect(transactions.map((t: any) => [t.state, t.allocated_amount])).toStrictEqual([["unmatched", "0.00"]]);
    }
    // A block that is not ours, or of a collection that does not exist.
    const { transactions } = await statementOf([
      batchEntry("50.00", "DDC-2026-11-20-FRST", 2),
      batchEntry("50.00", `${messageIdOf(crypto.randomUUID())}-FRST`, 2),
      batchEntry("50.00", `${collection.message_id}-RCUR`, 2),
    ]);
    expect(transactions.map((t: any) => t.state)).toStrictEqual(["unmatched", "unmatched", "unmatched"]);
    for (const [who, invoice] of [
      [a, first],
      [b, second],
    ] as const) {
      expect(await paymentsOf(who.auth, invoice.id)).toStrictEqual([]);
      expect((await invoiceNow(who.auth, invoice.id)).state).toBe("open");
    }
    expect((await collectionNow(collection)).state).toBe("pending");
  });

  it("a credit naming a debit's end-to-end id with another amount is not its settlement: part 15's rules apply", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "40.00");
    const collection = await collect(dueDate());
    const { transactions } = await statementOf([settlementOf("15.00", invoice.number)]);
    const payments = await paymentsOf(auth, invoice.id);
    // Rule 1 reads the invoice number in the end-to-end id: a transfer of part of it.
    expect(payments.map((p: any) => [p.amount, p.method, p.bank_transaction_id])).toStrictEqual([
      ["15.00", "bank_transfer", transactions[0].id],
    ]);
    expect((await collectionNow(collection)).state).toBe("pending");
  });
});

describe("returns, from camt.053", () => {
  it.each(VERSIONS.flatMap((version) => [[version, false] as const, [version, true] as const]))(
    "%s (RvslInd %s): a return reverses the paid debit's payment, reopens the invoice, emits payment.returned; the fee stays unapplied",
    async (version, reversal) => {
      const { auth, customerId, profile } = await debtor();
      const invoice = await ddInvoice(auth, "60.00");
      const { collection, transaction: settled } = await collectedAndPaid(invoice);
      const [paid] = await paymentsOf(auth, invoice.id);
      expect((await collectionNow(collection)).state).toBe("settled");

      // The bank debits the amount and its fee of 3.50.
      const { statement, transactions } = await statementOf(
        [returnOf("63.50", invoice.number, "MD06", { reversal, creditorIban: profile.direct_debit_iban ?? undefined })],
        version,
      );
      expect(statement).toMatchObject({ transactions_count: 1, matched_count: 1 });
      const [tx] = transactions;
      expect(tx).toMatchObject({
        credit_debit: "debit",
        amount: "63.50",
        end_to_end_id: invoice.number,
        state: "matched",
        allocated_amount: "60.00",
        unapplied_amount: "3.50",
        customer: customerId,
      });
      const [payment] = await paymentsOf(auth, invoice.id);
      expect(payment).toStrictEqual({
        ...paid,
        returned_at: expect.stringMatching(ISO_MS),
        return_reason: "MD06",
      });
      expect(payment.bank_transaction_id).toBe(settled.id);
      const reopened = await invoiceNow(auth, invoice.id);
      expect([reopened.state, reopened.paid_at]).toStrictEqual(["open", null]);
      expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "0.00", open_amount: "60.00" });
      expect(await paymentEvents(auth)).toStrictEqual([
        ["payment.received", paid],
        ["invoice.paid", expect.objectContaining({ id: invoice.id, state: "paid" })],
        ["payment.returned", payment],
      ]);
      // The collection stays settled: every invoice in it paid or returned.
      expect((await collectionNow(collection)).state).toBe("settled");
    },
  );

  it("a return weeks after the collection was settled still reverses the payment", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "12.00");
    const { collection } = await collectedAndPaid(invoice);
    expect((await collectionNow(collection)).state).toBe("settled");
    await statementOf([returnOf("12.00", invoice.number, "MD06", { bookedOn: "2027-01-15" })]);
    const [payment] = await paymentsOf(auth, invoice.id);
    expect([payment.return_reason, payment.returned_at === null]).toStrictEqual(["MD06", false]);
    expect((await invoiceNow(auth, invoice.id)).state).toBe("open");
    expect((await collectionNow(collection)).state).toBe("settled");
  });

  it("a return of one debit of a batch-settled block reverses only that invoice's payment", async () => {
    const a = await debtor();
    const b = await debtor();
    const first = await ddInvoice(a.auth, "11.00");
    const second = await ddInvoice(b.auth, "22.00");
    const collection = await collect(dueDate());
    await statementOf([batchEntry("33.00", `${collection.message_id}-FRST`, 2)]);
    await statementOf([returnOf("22.00", second.number, "AM04")]);
    expect((await invoiceNow(a.auth, first.id)).state).toBe("paid");
    expect((await invoiceNow(b.auth, second.id)).state).toBe("open");
    expect((await paymentsOf(b.auth, second.id))[0].return_reason).toBe("AM04");
    expect((await balanceOf(a.auth, first.id)).allocated_amount).toBe("11.00");
  });

  it("the same return twice (the same file, or another statement) reverses nothing twice", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "18.00");
    await collectedAndPaid(invoice);
    const file = statementFile([returnOf("18.00", invoice.number, "MD06")]);
    await upload(office, file);
    await drainStatements();
    const [returned] = await paymentsOf(auth, invoice.id);
    const events = await paymentEvents(auth);
    expect(events.map(([type]) => type)).toStrictEqual(["payment.received", "invoice.paid", "payment.returned"]);

    const [again] = await upload(office, file);
    await drainStatements();
    expect(await read(office, `/bank_statements/${again.id}`)).toMatchObject({
      state: "processed",
      duplicate_count: 1,
    });
    await statementOf([returnOf("18.00", invoice.number, "MD06")]);

    expect(await paymentsOf(auth, invoice.id)).toStrictEqual([returned]);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "0.00", open_amount: "18.00" });
    expect(await paymentEvents(auth)).toStrictEqual(events);
    expect((await invoiceNow(auth, invoice.id)).state).toBe("open");
  });

  it("a reversal without return information is not a return: ignored, nothing reversed", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "9.00");
    await collectedAndPaid(invoice);
    const entry = returnOf("9.00", invoice.number, "AM04", { reversal: true });
    delete entry.details![0]!.returnReason;
    const { transactions } = await statementOf([entry]);
    expect(transactions.map((t: any) => [t.state, t.allocated_amount])).toStrictEqual([["ignored", "0.00"]]);
    expect((await paymentsOf(auth, invoice.id))[0].returned_at).toBeNull();
    expect((await invoiceNow(auth, invoice.id)).state).toBe("paid");
  });

  it("a debit with return information naming no debit of ours is part 15's: ignored", async () => {
    const { transactions } = await statementOf([returnOf("5.00", "INV-2026-999999", "AM04")]);
    expect(transactions.map((t: any) => [t.state, t.allocated_amount])).toStrictEqual([["ignored", "0.00"]]);
  });

  it("after AM04 the returned invoice is collected again as RCUR, and its second settlement pays it again", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "30.00");
    const date = dueDate();
    await collectedAndPaid(invoice, date);
    await statementOf([returnOf("30.00", invoice.number, "AM04")]);
    const again = await collect(nextOpen(date));
    const debit = await debitOf(again, invoice);
    expect([debit.endToEndId, debit.sequence]).toStrictEqual([`${invoice.number}-R2`, "RCUR"]);
    // The original end-to-end id no longer settles anything; the new one does.
    await statementOf([settlementOf("30.00", `${invoice.number}-R2`)]);
    const payments = await paymentsOf(auth, invoice.id);
    expect(payments.map((p: any) => [p.amount, p.method, p.return_reason])).toStrictEqual([
      ["30.00", "direct_debit", "AM04"],
      ["30.00", "direct_debit", null],
    ]);
    expect((await invoiceNow(auth, invoice.id)).state).toBe("paid");
    expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "30.00", open_amount: "0.00" });
    expect((await collectionNow(again)).state).toBe("settled");
    expect((await paymentEvents(auth)).map(([type]) => type)).toStrictEqual([
      "payment.received",
      "invoice.paid",
      "payment.returned",
      "payment.received",
      "invoice.paid",
    ]);
  });
});

// CONTRACT part 16, amended after a red team (issue 39): the order in which a return and its settlement
// are read does not matter, and money the bank took back is never allocatable again.
describe("a return and its settlement, in either order", () => {
  it.each(VERSIONS.flatMap((version) => [[version, "one file"] as const, [version, "two files"] as const]))(
    "%s, the return read first (%s): the settlement is recorded and reversed at once, both events; the invoice never paid",
    async (version, how) => {
      const { auth, customerId } = await debtor();
      const invoice = await ddInvoice(auth, "40.00");
      const collection = await collect(dueDate());
      const debit = await debitOf(collection, invoice);
      const back = returnOf("40.00", debit.endToEndId, "MD06");
      const settlement = settlementOf("40.00", debit.endToEndId);
      const transactions =
        how === "one file"
          ? (await statementOf([back, settlement], version)).transactions
          : [
              ...(await statementOf([back], version)).transactions,
              ...(await statementOf([settlement], version)).transactions,
            ];
      expect(
        transactions.map((t: any) => [t.credit_debit, t.state, t.allocated_amount, t.unapplied_amount]),
      ).toStrictEqual([
        ["debit", "matched", "40.00", "0.00"],
        ["credit", "matched", "40.00", "0.00"],
      ]);
      expect(transactions[1].customer).toBe(customerId);
      const [payment] = await paymentsOf(auth, invoice.id);
      expect(payment).toStrictEqual({
        id: expect.any(String),
        type: "payment",
        invoice_id: invoice.id,
        invoice_number: invoice.number,
        amount: "40.00",
        method: "direct_debit",
        bank_transaction_id: transactions[1].id,
        booked_on: "2026-11-20",
        returned_at: expect.stringMatching(ISO_MS),
        return_reason: "MD06",
        created_at: expect.stringMatching(ISO_MS),
      });
      const now = await invoiceNow(auth, invoice.id);
      expect([now.state, now.paid_at]).toStrictEqual(["open", null]);
      expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "0.00", open_amount: "40.00" });
      expect(await paymentEvents(auth)).toStrictEqual([
        ["payment.received", { ...payment, returned_at: null, return_reason: null }],
        ["payment.returned", payment],
      ]);
      expect((await collectionNow(collection)).state).toBe("settled");
      // Nothing of the settlement is left to allocate by hand.
      await expectError(
        await call(`/bank_transactions/${transactions[1].id}/allocations`, {
          token: office,
          method: "POST",
          json: { invoice_id: invoice.id, amount: "1.00" },
        }),
        409,
        { code: "conflict" },
      );
    },
  );

  it.each(VERSIONS)(
    "%s: a return after a partly covered settlement: the settlement's unapplied part, which the bank took back, is gone",
    async (version) => {
      const { auth } = await debtor();
      const invoice = await ddInvoice(auth, "100.00");
      const collection = await collect(dueDate());
      const debit = await debitOf(collection, invoice);
      // A transfer of 20.00 came meanwhile: the settlement pays the 80.00 still open, 20.00 stays unapplied.
      await statementOf([credit("20.00", { structuredReference: rfReference(invoice.number) })], version);
      const [settled] = (await statementOf([settlementOf("100.00", debit.endToEndId)], version)).transactions;
      expect([settled.state, settled.allocated_amount, settled.unapplied_amount]).toStrictEqual([
        "overpaid",
        "80.00",
        "20.00",
      ]);
      const [back] = (await statementOf([returnOf("100.00", debit.endToEndId, "MD06")], version)).transactions;
      expect([back.state, back.allocated_amount, back.unapplied_amount]).toStrictEqual(["matched", "100.00", "0.00"]);
      expect(await read(office, `/bank_transactions/${settled.id}`)).toMatchObject({
        state: "matched",
        allocated_amount: "100.00",
        unapplied_amount: "0.00",
      });
      expect(await balanceOf(auth, invoice.id)).toMatchObject({ allocated_amount: "20.00", open_amount: "80.00" });
      expect((await invoiceNow(auth, invoice.id)).state).toBe("open");
      await expectError(
        await call(`/bank_transactions/${settled.id}/allocations`, {
          token: office,
          method: "POST",
          json: { invoice_id: invoice.id, amount: "20.00" },
        }),
        409,
        { code: "conflict" },
      );
    },
  );

  it("a return after a settlement that paid nothing (a transfer paid the invoice first): the settlement's money is gone", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "30.00");
    const collection = await collect(dueDate());
    const debit = await debitOf(collection, invoice);
    await statementOf([credit("30.00", { structuredReference: rfReference(invoice.number) })]);
    const [settled] = (await statementOf([settlementOf("30.00", debit.endToEndId)])).transactions;
    expect([settled.state, settled.unapplied_amount]).toStrictEqual(["unmatched", "30.00"]);
    await statementOf([returnOf("30.00", debit.endToEndId, "AM04")]);
    expect(await read(office, `/bank_transactions/${settled.id}`)).toMatchObject({
      state: "matched",
      allocated_amount: "30.00",
      unapplied_amount: "0.00",
    });
    // The transfer still pays it.
    expect((await invoiceNow(auth, invoice.id)).state).toBe("paid");
  });

  // Part 18 with part 16: a settlement that found the invoice paid pays its unpaid charges; its return
  // takes back what it took, and the invoice, paid by the transfer, stays paid.
  it("a return after a settlement that paid only charges: the charges are open again, the invoice stays paid", async () => {
    const { auth } = await debtor();
    const invoice = await ddInvoice(auth, "30.00");
    const collection = await collect(dueDate());
    const debit = await debitOf(collection, invoice);
    await statementOf([credit("30.00", { structuredReference: rfReference(invoice.number) })]);
    // A reminder claimed 7.50 of interest and fees (as the dunning run writes it).
    await env.DB.prepare("UPDATE invoices SET charges_amount = 750 WHERE id = ?").bind(invoice.id).run();
    const [settled] = (await statementOf([settlementOf("30.00", debit.endToEndId)])).transactions;
    expect([settled.state, settled.allocated_amount, settled.unapplied_amount]).toStrictEqual([
      "overpaid",
      "7.50",
      "22.50",
    ]);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({
      allocated_amount: "37.50",
      open_amount: "0.00",
      charges_open_amount: "0.00",
    });
    await statementOf([returnOf("30.00", debit.endToEndId, "MD06")]);
    expect(await balanceOf(auth, invoice.id)).toMatchObject({
      allocated_amount: "30.00",
      open_amount: "0.00",
      charges_amount: "7.50",
      charges_open_amount: "7.50",
    });
    expect((await invoiceNow(auth, invoice.id)).state).toBe("paid");
    // The bank took back all 30.00: nothing of the settlement is allocatable again.
    expect(await read(office, `/bank_transactions/${settled.id}`)).toMatchObject({
      state: "matched",
      unapplied_amount: "0.00",
    });
  });
});
