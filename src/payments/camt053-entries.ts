// What the camt.053 reader reads: the elements, as a tree of names (elementTree(); everything else in a
// file is skipped), and how one entry (Ntry) as collected becomes the statement's transactions: one per
// transaction detail (NtryDtls/TxDtls), or one built from the entry itself when it has none. The values
// are checked here, when the entry has closed and its AcctSvcrRef is known to name it in an error.
import {
  Problem,
  readBoolean,
  readCents,
  readCreditDebit,
  readCurrency,
  readDate,
  readDateOfDateTime,
} from "./camt053-values";

export type CamtVersion = "camt.053.001.02" | "camt.053.001.08";

/** One transaction of a statement, in file order. Texts are trimmed; empty ones are null. */
export interface StatementTransaction {
  /** 0-based position of the entry (Ntry) in the statement. */
  entryIndex: number;
  /** 0-based position of the detail (TxDtls) in the entry; 0 for an entry without details. */
  detailIndex: number;
  /** Ntry/AcctSvcrRef. */
  entryReference: string | null;
  /** TxDtls/Refs/AcctSvcrRef. */
  detailReference: string | null;
  /** "BOOK", "PDNG", "INFO" or another code, as the bank wrote it (V08 Sts/Cd or Sts/Prtry, V02 Sts). */
  status: string;
  /** RvslInd true. */
  reversal: boolean;
  /** BookgDt/Dt, or the date part of BookgDt/DtTm (YYYY-MM-DD). */
  bookedOn: string | null;
  /** ValDt/Dt, or the date part of ValDt/DtTm. */
  valueDate: string | null;
  /** The detail's CdtDbtInd when it has one, else the entry's. */
  creditDebit: "credit" | "debit";
  /** The detail's amount (V08 Amt, V02 AmtDtls/TxAmt/Amt), else the entry's (an entry of one detail or none). */
  amountCents: number;
  /** The Ccy of that amount. */
  currency: string;
  /** The debtor's name for a credit, the creditor's for a debit. */
  counterpartyName: string | null;
  /** DbtrAcct/Id/IBAN for a credit, CdtrAcct/Id/IBAN for a debit. */
  counterpartyIban: string | null;
  /** Refs/EndToEndId; NOTPROVIDED is null. */
  endToEndId: string | null;
  /** The first RmtInf/Strd/CdtrRefInf/Ref. */
  creditorReference: string | null;
  /** Every RmtInf/Ustrd line, joined by a space. */
  remittanceInformation: string | null;
  /** NtryDtls/Btch/PmtInfId: of the detail's NtryDtls; for an entry without details, the first. */
  batchPaymentInformationId: string | null;
  /** The entry's own Amt. */
  entryAmountCents: number;
  /** How many TxDtls the entry has (0 without details). */
  entryTransactionsCount: number;
  /** TxDtls/RtrInf/Rsn/Cd. */
  returnReason: string | null;
}

/**
 * The texts of the elements of interest, by their path below the entry, entry details or detail
 * ("Refs/EndToEndId"); an amount's currency attribute under "Amt@Ccy". Repeated elements keep every text.
 */
export type Texts = Map<string, string[]>;

/** An entry as read: its texts, those of each NtryDtls (its batch), and each TxDtls with its NtryDtls's. */
export interface RawEntry {
  texts: Texts;
  groups: Texts[];
  details: { texts: Texts; group: Texts }[];
}

const AMOUNTS = ["Amt", "AmtDtls/TxAmt/Amt"];
/**
 * The longest remittance information kept (its Ustrd lines joined; each line is at most 140 characters,
 * their number unbounded): longer fails the statement before anything of it is stored, rather than one
 * transaction's batch failing in D1 (SQLITE_TOOBIG) after others were applied.
 */
const MAX_REMITTANCE = 10_000;
const DATES = ["BookgDt/Dt", "BookgDt/DtTm", "ValDt/Dt", "ValDt/DtTm"];
const COMMON_ENTRY = ["Amt", "CdtDbtInd", "RvslInd", "AcctSvcrRef", ...DATES];
const COMMON_DETAIL = [
  ...AMOUNTS,
  "CdtDbtInd",
  "Refs/AcctSvcrRef",
  "Refs/EndToEndId",
  "RltdPties/DbtrAcct/Id/IBAN",
  "RltdPties/CdtrAcct/Id/IBAN",
  "RmtInf/Ustrd",
  "RmtInf/Strd/CdtrRefInf/Ref",
  "RtrInf/Rsn/Cd",
];

/** The paths read below Ntry, NtryDtls and TxDtls, by version (none is inside another of its version). */
const PATHS: Record<CamtVersion, { entry: string[]; group: string[]; detail: string[] }> = {
  "camt.053.001.02": {
    entry: [...COMMON_ENTRY, "Sts"],
    group: ["Btch/PmtInfId"],
    detail: [...COMMON_DETAIL, "RltdPties/Dbtr/Nm", "RltdPties/Cdtr/Nm"],
  },
  "camt.053.001.08": {
    entry: [...COMMON_ENTRY, "Sts/Cd", "Sts/Prtry"],
    group: ["Btch/PmtInfId"],
    detail: [...COMMON_DETAIL, "RltdPties/Dbtr/Pty/Nm", "RltdPties/Cdtr/Pty/Nm"],
  },
};

export type Scope = "header" | "statement" | "entry" | "group" | "detail";

export interface Node {
  readonly next: Map<string, Node>;
  /** The scope this element starts (GrpHdr, Stmt, Ntry, NtryDtls, TxDtls). */
  starts?: Scope;
  /** For an element whose text is read: its scope and its path below the scope's element. */
  read?: { scope: Scope; key: string };
}

const SCOPES: Record<Scope, string> = {
  header: "BkToCstmrStmt/GrpHdr",
  statement: "BkToCstmrStmt/Stmt",
  entry: "BkToCstmrStmt/Stmt/Ntry",
  group: "BkToCstmrStmt/Stmt/Ntry/NtryDtls",
  detail: "BkToCstmrStmt/Stmt/Ntry/NtryDtls/TxDtls",
};

/** The elements read, as a tree of the names below Document, with the scopes they start. */
export function elementTree(version: CamtVersion): Node {
  const root: Node = { next: new Map() };
  const node = (path: string) =>
    path.split("/").reduce((parent, name) => {
      let child = parent.next.get(name);
      if (!child) parent.next.set(name, (child = { next: new Map() }));
      return child;
    }, root);
  const read: Record<Scope, Iterable<string>> = {
    header: ["MsgId"],
    statement: ["Id", "Acct/Id/IBAN", "FrToDt/FrDtTm", "FrToDt/ToDtTm"],
    ...PATHS[version],
  };
  for (const [scope, path] of Object.entries(SCOPES) as [Scope, string][]) {
    node(path).starts = scope;
    for (const key of read[scope]) node(`${path}/${key}`).read = { scope, key };
  }
  return root;
}

/** The first non-empty text of the first path that has one, or null. */
function text(texts: Texts, ...paths: string[]): string | null {
  for (const path of paths) for (const value of texts.get(path) ?? []) if (value !== "") return value;
  return null;
}

function date(texts: Texts, element: "BookgDt" | "ValDt", what: string): string | null {
  const day = text(texts, `${element}/Dt`);
  if (day !== null) return readDate(day, what);
  const moment = text(texts, `${element}/DtTm`);
  return moment === null ? null : readDateOfDateTime(moment, `${what}-time`);
}

/** The amount at the first of `paths` present, with its currency; null when none is. */
function amount(texts: Texts, paths: string[]): { cents: number; currency: string } | null {
  for (const path of paths) {
    const value = text(texts, path);
    if (value !== null) return { cents: readCents(value), currency: readCurrency(texts.get(`${path}@Ccy`)?.[0]) };
  }
  return null;
}

/**
 * The transactions of `entry` (the statement's `entryIndex`th, 0-based). Throws a Problem whose message
 * names the entry (1-based, with its AcctSvcrRef) and the detail when a value is malformed.
 */
export function entryTransactions(entry: RawEntry, entryIndex: number): StatementTransaction[] {
  const entryReference = text(entry.texts, "AcctSvcrRef");
  try {
    return transactions(entry, entryIndex, entryReference);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const reference = entryReference === null ? "" : ` (AcctSvcrRef ${entryReference})`;
    const detail = error.detail === undefined ? "" : `, detail ${error.detail + 1}`;
    throw new Problem(`entry ${entryIndex + 1}${reference}${detail}: ${error.message}`);
  }
}

function transactions(entry: RawEntry, entryIndex: number, entryReference: string | null): StatementTransaction[] {
  const { texts, details } = entry;
  const entryAmount = amount(texts, ["Amt"]);
  if (entryAmount === null) throw new Problem("no amount (Amt)");
  const entryCreditDebit = readCreditDebit(text(texts, "CdtDbtInd") ?? undefined);
  const status = text(texts, "Sts", "Sts/Cd", "Sts/Prtry");
  if (status === null) throw new Problem("no status (Sts)");
  const reversalText = text(texts, "RvslInd");
  const reversal = reversalText === null ? false : readBoolean(reversalText, "reversal indicator");
  const bookedOn = date(texts, "BookgDt", "booking date");
  const valueDate = date(texts, "ValDt", "value date");
  const entryTransactionsCount = details.length;
  const entryAmountCents = entryAmount.cents;
  if (details.length === 0)
    return [
      {
        entryIndex,
        detailIndex: 0,
        entryReference,
        detailReference: null,
        status,
        reversal,
        bookedOn,
        valueDate,
        creditDebit: entryCreditDebit,
        amountCents: entryAmount.cents,
        currency: entryAmount.currency,
        counterpartyName: null,
        counterpartyIban: null,
        endToEndId: null,
        creditorReference: null,
        remittanceInformation: null,
        batchPaymentInformationId: entry.groups.map((group) => text(group, "Btch/PmtInfId")).find(Boolean) ?? null,
        entryAmountCents,
        entryTransactionsCount,
        returnReason: null,
      },
    ];
  const read = details.map(({ texts: own, group }, detailIndex) => {
    try {
      const detailCreditDebit = text(own, "CdtDbtInd");
      const creditDebit = detailCreditDebit === null ? entryCreditDebit : readCreditDebit(detailCreditDebit);
      // CONTRACT part 15: a detail contradicting its entry's direction fails the entry.
      if (creditDebit !== entryCreditDebit) throw new Problem(`a ${creditDebit} inside a ${entryCreditDebit} entry`);
      const detailAmount = amount(own, AMOUNTS) ?? (details.length === 1 ? entryAmount : null);
      if (detailAmount === null) throw new Problem(`no amount (Amt), and the entry has ${details.length} details`);
      const party = creditDebit === "credit" ? "Dbtr" : "Cdtr";
      const endToEndId = text(own, "Refs/EndToEndId");
      const lines = (own.get("RmtInf/Ustrd") ?? []).filter((line) => line !== "");
      const remittance = lines.join(" ");
      if (remittance.length > MAX_REMITTANCE)
        throw new Problem(
          `its remittance information (Ustrd) has ${remittance.length} characters: at most ${MAX_REMITTANCE} are kept`,
        );
      return {
        entryIndex,
        detailIndex,
        entryReference,
        detailReference: text(own, "Refs/AcctSvcrRef"),
        status,
        reversal,
        bookedOn,
        valueDate,
        creditDebit,
        amountCents: detailAmount.cents,
        currency: detailAmount.currency,
        counterpartyName: text(own, `RltdPties/${party}/Nm`, `RltdPties/${party}/Pty/Nm`),
        counterpartyIban: text(own, `RltdPties/${party}Acct/Id/IBAN`),
        endToEndId: endToEndId === "NOTPROVIDED" ? null : endToEndId,
        creditorReference: text(own, "RmtInf/Strd/CdtrRefInf/Ref"),
        remittanceInformation: lines.length === 0 ? null : remittance,
        batchPaymentInformationId: text(group, "Btch/PmtInfId"),
        entryAmountCents,
        entryTransactionsCount,
        returnReason: text(own, "RtrInf/Rsn/Cd"),
      };
    } catch (error) {
      throw error instanceof Problem && error.detail === undefined ? new Problem(error.message, detailIndex) : error;
    }
  });
  // CONTRACT part 15: the details of an entry are its parts (those in its currency add up to its amount).
  if (read.every((tx) => tx.currency === entryAmount.currency)) {
    const sum = read.reduce((total, tx) => total + tx.amountCents, 0);
    if (sum !== entryAmountCents)
      throw new Problem(`its details add up to ${money(sum)}, not to its amount ${money(entryAmountCents)}`);
  }
  return read;
}

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
