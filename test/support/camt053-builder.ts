// camt.053 bank statement files for the tests and the benchmark, in both versions the service reads
// (camt.053.001.02 and .08), from a plain description. Every element is written in the order the ISO
// schema requires, through src/documents/xml.ts (which escapes all text), and a description the schema
// would refuse (a name over 140 characters, an impossible date, a V02 status other than BOOK, PDNG or
// INFO, ...) throws instead: every file this returns is valid against the schema
// (test/payments/camt053-files.test.mjs runs ISO20022_VALIDATE over a representative set).
import fc from "fast-check";
import { el, serialize } from "../../src/documents/xml";
import type { StatementFile, StatementTransaction } from "../../src/payments/camt053";

export type Camt053Version = "camt.053.001.02" | "camt.053.001.08";

export interface Camt053Detail {
  /** The detail's own amount (V08 Amt, V02 AmtDtls/TxAmt/Amt); the entry's applies without it. */
  amount?: string;
  /** V08 only (V02 details have no CdtDbtInd): the entry's applies without it. */
  creditDebit?: "credit" | "debit";
  endToEndId?: string;
  accountServicerReference?: string;
  debtorName?: string;
  debtorIban?: string;
  creditorName?: string;
  creditorIban?: string;
  /** RmtInf/Strd/CdtrRefInf/Ref, of type SCOR. */
  structuredReference?: string;
  /** RmtInf/Ustrd lines, each at most 140 characters. */
  unstructured?: string[];
  /** RtrInf/Rsn/Cd (AM04, MD06, ...). */
  returnReason?: string;
}

export interface Camt053Entry {
  /** Exactly as written into Amt: a decimal of at most 5 fraction digits ("12.34", "18.150"). */
  amount: string;
  /** Ccy of the amounts, EUR unless said. */
  currency?: string;
  creditDebit: "credit" | "debit";
  /** BOOK, PDNG, INFO (V02 knows no other), or another code of up to 4 characters (V08). */
  status: string;
  /** YYYY-MM-DD. */
  bookedOn?: string;
  valueDate?: string;
  accountServicerReference?: string;
  reversal?: boolean;
  /** NtryDtls/Btch: the collection's payment information id and its number of transactions. */
  batch?: { paymentInformationId: string; count: number };
  details?: Camt053Detail[];
}

export interface Camt053Statement {
  id: string;
  iban: string;
  /** FrToDt, both or neither: YYYY-MM-DD, written as the day's first and last second. */
  from?: string;
  to?: string;
  entries: Camt053Entry[];
}

export interface Camt053Description {
  version: Camt053Version;
  messageId: string;
  /** GrpHdr/CreDtTm and Stmt/CreDtTm; 2026-11-21T20:00:00 unless said. */
  createdAt?: string;
  statements: Camt053Statement[];
}

const NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:";

/** The camt.053 file (UTF-8 text) `description` describes. */
export function camt053File(description: Camt053Description): string {
  const { version, messageId, statements } = description;
  if (version !== "camt.053.001.02" && version !== "camt.053.001.08") throw new Error(`unknown version ${version}`);
  const createdAt = description.createdAt ?? "2026-11-21T20:00:00";
  checkDateTime(createdAt);
  if (statements.length === 0) throw new Error("a camt.053 file holds at least one statement");
  const v08 = version === "camt.053.001.08";
  return serialize(
    el(
      "Document",
      { xmlns: NAMESPACE + version },
      el(
        "BkToCstmrStmt",
        null,
        el("GrpHdr", null, el("MsgId", null, text(messageId, 35)), el("CreDtTm", null, createdAt)),
        statements.map((statement, index) => statementElement(statement, index, createdAt, v08)),
      ),
    ),
  );
}

function statementElement(statement: Camt053Statement, index: number, createdAt: string, v08: boolean) {
  const { from, to } = statement;
  if ((from === undefined) !== (to === undefined)) throw new Error("FrToDt needs both from and to");
  if (from !== undefined) checkDate(from);
  if (to !== undefined) checkDate(to);
  const day = to ?? createdAt.slice(0, 10);
  const closing = statement.entries
    .filter((entry) => entry.status === "BOOK")
    .reduce((sum, e) => sum + (e.creditDebit === "credit" ? 1n : -1n) * units(e.amount), 0n);
  return el(
    "Stmt",
    null,
    el("Id", null, text(statement.id, 35)),
    el("ElctrncSeqNb", null, String(index + 1)),
    el("CreDtTm", null, createdAt),
    from !== undefined &&
      el("FrToDt", null, el("FrDtTm", null, `${from}T00:00:00`), el("ToDtTm", null, `${to}T23:59:59`)),
    el("Acct", null, el("Id", null, el("IBAN", null, iban(statement.iban))), el("Ccy", null, "EUR")),
    balance("PRCD", 0n, day),
    balance("CLBD", closing, day),
    statement.entries.map((entry) => entryElement(entry, v08)),
  );
}

function balance(code: string, amount: bigint, day: string) {
  return el(
    "Bal",
    null,
    el("Tp", null, el("CdOrPrtry", null, el("Cd", null, code))),
    el("Amt", { Ccy: "EUR" }, decimal(amount < 0n ? -amount : amount)),
    el("CdtDbtInd", null, amount < 0n ? "DBIT" : "CRDT"),
    el("Dt", null, el("Dt", null, day)),
  );
}

function entryElement(entry: Camt053Entry, v08: boolean) {
  const currency = entry.currency ?? "EUR";
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error(`not a currency code: ${currency}`);
  if (v08 ? !/^.{1,4}$/u.test(entry.status) : !["BOOK", "PDNG", "INFO"].includes(entry.status))
    throw new Error(`status ${entry.status} is not one ${v08 ? "V08" : "V02"} allows`);
  const details = entry.details ?? [];
  const returned = details.some((detail) => detail.returnReason !== undefined);
  const [family, subFamily] = returned
    ? ["IDDT", "UPDD"]
    : entry.batch
      ? ["IDDT", "ESDD"]
      : entry.creditDebit === "credit"
        ? ["RCDT", "ESCT"]
        : ["ICDT", "ESCT"];
  const date = (name: string, day: string | undefined) =>
    day !== undefined && el(name, null, el("Dt", null, checkDate(day)));
  const batch = entry.batch;
  if (batch && !(Number.isInteger(batch.count) && batch.count >= 0)) throw new Error(`batch count ${batch.count}`);
  return el(
    "Ntry",
    null,
    el("Amt", { Ccy: currency }, amount(entry.amount)),
    el("CdtDbtInd", null, indicator(entry.creditDebit)),
    entry.reversal !== undefined && el("RvslInd", null, String(entry.reversal)),
    el("Sts", null, v08 ? el("Cd", null, entry.status) : entry.status),
    date("BookgDt", entry.bookedOn),
    date("ValDt", entry.valueDate),
    entry.accountServicerReference !== undefined && el("AcctSvcrRef", null, text(entry.accountServicerReference, 35)),
    el(
      "BkTxCd",
      null,
      el(
        "Domn",
        null,
        el("Cd", null, "PMNT"),
        el("Fmly", null, el("Cd", null, family), el("SubFmlyCd", null, subFamily)),
      ),
    ),
    (batch || details.length > 0) &&
      el(
        "NtryDtls",
        null,
        batch &&
          el(
            "Btch",
            null,
            el("PmtInfId", null, text(batch.paymentInformationId, 35)),
            el("NbOfTxs", null, String(batch.count)),
          ),
        details.map((detail) => detailElement(detail, entry, currency, v08)),
      ),
  );
}

function detailElement(detail: Camt053Detail, entry: Camt053Entry, currency: string, v08: boolean) {
  const direction = detail.creditDebit ?? entry.creditDebit;
  if (!v08 && direction !== entry.creditDebit) throw new Error("a V02 detail has no CdtDbtInd of its own");
  const refs = [
    detail.accountServicerReference !== undefined && el("AcctSvcrRef", null, text(detail.accountServicerReference, 35)),
    detail.endToEndId !== undefined && el("EndToEndId", null, text(detail.endToEndId, 35)),
  ].filter(Boolean);
  const party = (name: string | undefined) =>
    name === undefined
      ? null
      : v08
        ? el("Pty", null, el("Nm", null, text(name, 140)))
        : el("Nm", null, text(name, 140));
  const account = (value: string | undefined) => value !== undefined && el("Id", null, el("IBAN", null, iban(value)));
  const parties = [
    detail.debtorName !== undefined && el("Dbtr", null, party(detail.debtorName)),
    detail.debtorIban !== undefined && el("DbtrAcct", null, account(detail.debtorIban)),
    detail.creditorName !== undefined && el("Cdtr", null, party(detail.creditorName)),
    detail.creditorIban !== undefined && el("CdtrAcct", null, account(detail.creditorIban)),
  ].filter(Boolean);
  const lines = detail.unstructured ?? [];
  const reference = detail.structuredReference;
  const remittance = [
    lines.map((line) => el("Ustrd", null, text(line, 140))),
    reference !== undefined &&
      el(
        "Strd",
        null,
        el(
          "CdtrRefInf",
          null,
          el("Tp", null, el("CdOrPrtry", null, el("Cd", null, "SCOR")), el("Issr", null, "ISO")),
          el("Ref", null, text(reference, 35)),
        ),
      ),
  ];
  const own = detail.amount === undefined ? null : amount(detail.amount);
  return el(
    "TxDtls",
    null,
    refs.length > 0 && el("Refs", null, refs),
    v08 && own !== null && el("Amt", { Ccy: currency }, own),
    v08 && detail.creditDebit !== undefined && el("CdtDbtInd", null, indicator(detail.creditDebit)),
    !v08 && own !== null && el("AmtDtls", null, el("TxAmt", null, el("Amt", { Ccy: currency }, own))),
    parties.length > 0 && el("RltdPties", null, parties),
    (lines.length > 0 || reference !== undefined) && el("RmtInf", null, remittance),
    detail.returnReason !== undefined &&
      el("RtrInf", null, el("Rsn", null, el("Cd", null, text(detail.returnReason, 4)))),
  );
}

// --- What the schema allows, checked.

const indicator = (direction: "credit" | "debit") => (direction === "credit" ? "CRDT" : "DBIT");

/** Text of at most `max` characters (Max35Text, Max140Text), at least one, all of them XML characters. */
function text(value: string, max: number): string {
  const length = [...value].length;
  if (length < 1 || length > max) throw new Error(`${JSON.stringify(value)} is not 1 to ${max} characters`);
  if (/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(value))
    throw new Error(`${JSON.stringify(value)} holds a character XML cannot carry`);
  return value;
}

function iban(value: string): string {
  if (!/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$/.test(value)) throw new Error(`not an IBAN: ${value}`);
  return value;
}

/** ActiveOrHistoricCurrencyAndAmount: at most 18 digits, 5 of them after the point. */
function amount(value: string): string {
  const match = /^(\d+)(?:\.(\d{1,5}))?$/.exec(value);
  if (!match || match[1]!.replace(/^0+/, "").length + (match[2]?.length ?? 0) > 18)
    throw new Error(`not an amount the schema allows: ${value}`);
  return value;
}

/** An amount in 1/100000, exactly. */
const units = (value: string) => {
  const [whole, fraction = ""] = amount(value).split(".");
  return BigInt(whole!) * 100000n + BigInt(fraction.padEnd(5, "0"));
};
const decimal = (value: bigint) =>
  `${value / 100000n}.${String(value % 100000n)
    .padStart(5, "0")
    .slice(0, 2)}`;

function checkDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = match && new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (!date || date.toISOString().slice(0, 10) !== value) throw new Error(`not a calendar date: ${value}`);
  return value;
}

function checkDateTime(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(value)) throw new Error(`not a date-time: ${value}`);
  checkDate(value.slice(0, 10));
  return value;
}

// --- What the service reads of a description (src/payments/camt053.ts), for the round-trip tests.

const clean = (value: string | undefined) => (value === undefined || value.trim() === "" ? null : value.trim());
/** Cents of an amount without a non-zero digit past the cent. */
const cents = (value: string) => {
  const [whole, fraction = ""] = value.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0").slice(0, 2));
};

/** The transactions of `description`'s `statementIndex`th statement, as readStatement() returns them. */
export function describedTransactions(description: Camt053Description, statementIndex: number): StatementTransaction[] {
  return description.statements[statementIndex]!.entries.flatMap((entry, entryIndex) => {
    const details = entry.details ?? [];
    const shared = {
      entryIndex,
      entryReference: clean(entry.accountServicerReference),
      status: entry.status,
      reversal: entry.reversal ?? false,
      bookedOn: entry.bookedOn ?? null,
      valueDate: entry.valueDate ?? null,
      currency: entry.currency ?? "EUR",
      entryAmountCents: cents(entry.amount),
      entryTransactionsCount: details.length,
    };
    if (details.length === 0)
      return [
        {
          ...shared,
          detailIndex: 0,
          detailReference: null,
          creditDebit: entry.creditDebit,
          amountCents: cents(entry.amount),
          counterpartyName: null,
          counterpartyIban: null,
          endToEndId: null,
          creditorReference: null,
          remittanceInformation: null,
          batchPaymentInformationId: clean(entry.batch?.paymentInformationId),
          returnReason: null,
        },
      ];
    return details.map((detail, detailIndex) => {
      const creditDebit = detail.creditDebit ?? entry.creditDebit;
      const credit = creditDebit === "credit";
      const endToEndId = clean(detail.endToEndId);
      const lines = (detail.unstructured ?? []).map((line) => line.trim()).filter((line) => line !== "");
      return {
        ...shared,
        detailIndex,
        detailReference: clean(detail.accountServicerReference),
        creditDebit,
        amountCents: cents(detail.amount ?? entry.amount),
        counterpartyName: clean(credit ? detail.debtorName : detail.creditorName),
        counterpartyIban: clean(credit ? detail.debtorIban : detail.creditorIban),
        endToEndId: endToEndId === "NOTPROVIDED" ? null : endToEndId,
        creditorReference: clean(detail.structuredReference),
        remittanceInformation: lines.length === 0 ? null : lines.join(" "),
        batchPaymentInformationId: clean(entry.batch?.paymentInformationId),
        returnReason: clean(detail.returnReason),
      };
    });
  });
}

/** What inspectStatementFile() returns of the file `description` describes. */
export function describedFile(description: Camt053Description): StatementFile {
  return {
    version: description.version,
    messageId: clean(description.messageId),
    statements: description.statements.map((statement, index) => ({
      index,
      id: clean(statement.id)!,
      accountIban: statement.iban,
      fromDate: statement.from ?? null,
      toDate: statement.to ?? null,
      transactionsCount: describedTransactions(description, index).length,
    })),
  };
}

// --- Any description, in either version (fast-check), for the round-trip property and the schema check.

const anyReference = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ./-]{0,33}[A-Za-z0-9]$/);
const anyIban = fc.stringMatching(/^DE\d{20}$/);
const anyDay = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));
/** Names and remittance lines: umlauts, the characters XML escapes, spaces (also leading and trailing). */
const anyWords = fc.string({ unit: fc.constantFrom(..."aZ09 äöüßÄ&<>\"'é€-/.,+"), minLength: 1, maxLength: 140 });
/** Up to 999,999,999.99, sometimes with zeros past the cent ("18.150"), sometimes without a point. */
const anyAmount = fc
  .tuple(fc.integer({ min: 0, max: 99_999_999_999 }), fc.constantFrom("", "0", "000"), fc.boolean())
  .map(([cents, zeros, whole]) =>
    whole && cents % 100 === 0
      ? String(cents / 100)
      : `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}${zeros}`,
  );
const anyDirection = fc.constantFrom<"credit" | "debit">("credit", "debit");

const anyDetail = (version: Camt053Version): fc.Arbitrary<Camt053Detail> =>
  fc.record(
    {
      amount: anyAmount,
      // V02 details have no CdtDbtInd.
      creditDebit: version === "camt.053.001.08" ? anyDirection : fc.constant(undefined),
      endToEndId: fc.oneof(anyReference, fc.constant("NOTPROVIDED")),
      accountServicerReference: anyReference,
      debtorName: anyWords,
      debtorIban: anyIban,
      creditorName: anyWords,
      creditorIban: anyIban,
      structuredReference: anyReference,
      unstructured: fc.array(anyWords, { maxLength: 3 }),
      returnReason: fc.constantFrom("AM04", "MD06", "AC04"),
    },
    { requiredKeys: [] },
  );

const anyEntry = (version: Camt053Version): fc.Arbitrary<Camt053Entry> =>
  fc
    .record(
      {
        amount: anyAmount,
        creditDebit: anyDirection,
        status: fc.constantFrom("BOOK", "PDNG", "INFO", ...(version === "camt.053.001.08" ? ["OTHR"] : [])),
        bookedOn: anyDay,
        valueDate: anyDay,
        accountServicerReference: anyReference,
        reversal: fc.boolean(),
        batch: fc.record({ paymentInformationId: anyReference, count: fc.nat(20) }),
        details: fc.array(anyDetail(version), { maxLength: 4 }),
      },
      { requiredKeys: ["amount", "creditDebit", "status"] },
    )
    // Several details each carry their own amount (the entry's is for one detail or none); the details are
    // the entry's parts (CONTRACT part 15): in its direction, their amounts adding up to its amount.
    .map((entry) => {
      const details = entry.details?.map((detail) => ({
        ...detail,
        ...(detail.creditDebit === undefined ? {} : { creditDebit: entry.creditDebit }),
      }));
      if (details === undefined || details.length === 0) return entry;
      const parts =
        details.length < 2 ? details : details.map((detail) => ({ ...detail, amount: detail.amount ?? "1.00" }));
      if (parts.some((detail) => detail.amount === undefined)) return { ...entry, details: parts };
      const cents = parts.reduce((sum, detail) => sum + Math.round(Number(detail.amount) * 100), 0);
      return { ...entry, amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`, details: parts };
    });

const anyStatement = (version: Camt053Version): fc.Arbitrary<Camt053Statement> =>
  fc
    .record({
      id: anyReference,
      iban: anyIban,
      period: fc.option(fc.tuple(anyDay, anyDay), { nil: undefined }),
      entries: fc.array(anyEntry(version), { maxLength: 6 }),
    })
    .map(({ period, ...statement }) => (period ? { ...statement, from: period[0], to: period[1] } : statement));

/** Files of 1 to 3 statements of up to 6 entries, using every element this builder writes. */
export const camt053Descriptions: fc.Arbitrary<Camt053Description> = fc
  .constantFrom<Camt053Version>("camt.053.001.02", "camt.053.001.08")
  .chain((version) =>
    fc.record({
      version: fc.constant(version),
      messageId: anyReference,
      statements: fc.array(anyStatement(version), { minLength: 1, maxLength: 3 }),
    }),
  );
