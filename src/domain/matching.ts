import { NUMBER_SERIES } from "./invoices";
import { isCreditorReference } from "./payment-reference";

// docs/api.md part 15: the matching of a booked EUR credit to invoices, the pure part. Rule 1 reads the
// references a transaction names; rule 2 shares its amount among the open invoices they name. Rule 3
// (no reference: the payer's IBAN and the amount) and rule 4 (a settled invoice is paid) need the
// database: src/payments/. A wrong match is worse than none: nothing here guesses.

/** What of a transaction names invoices. */
interface Referencing {
  creditorReference: string | null;
  remittanceInformation: string | null;
  endToEndId: string | null;
}

const INVOICE = NUMBER_SERIES.invoice;

/** `INV-2026-000004` from a year and a number as written (the patterns leave its leading zeros out, however many). */
const invoiceNumber = (year: string, number: string): string => `${INVOICE}-${year}-${number.padStart(6, "0")}`;

/** The invoice an RF reference's body names, if its body is an invoice number without hyphens. */
function invoiceOfBody(body: string): string | undefined {
  const match = new RegExp(`^${INVOICE}([0-9]{4})0*([0-9]{1,9})$`).exec(body);
  return match ? invoiceNumber(match[1]!, match[2]!) : undefined;
}

// An RF reference in free text: "RF" and two check digits, not inside a word, then its body: letters
// and digits, at most 21, as one run or in the printed groups of four that single spaces separate
// ("RF13 INV2 0260 0000 4").
const RF_START = /(?<![A-Z0-9])RF[0-9]{2}/gi;
const GROUP = /^ ?([A-Z0-9]+)/i;
// An invoice number as people type it: INV, the year, the number (any number of leading zeros, which do
// not matter); hyphens and spaces between them.
const NUMBER_IN_TEXT = new RegExp(`(?<![A-Z0-9])${INVOICE}[\\s-]*([0-9]{4})[\\s-]*0*([0-9]{1,9})(?![0-9])`, "gi");

interface Found {
  at: number;
  end: number;
  /** The invoice number it names; undefined: an RF reference that names nothing (wrong check digits). */
  invoice?: string;
}

/** The ends of an RF reference's possible bodies after `at`: a group more while the one before had four. */
function bodyEnds(text: string, at: number): number[] {
  const ends: number[] = [];
  let length = 0;
  for (let end = at; ; ) {
    const group = GROUP.exec(text.slice(end));
    if (!group || length + group[1]!.length > 21) break;
    length += group[1]!.length;
    end += group[0].length;
    ends.push(end);
    if (group[1]!.length !== 4) break;
  }
  return ends;
}

/**
 * The RF references in `text`: each with the longest body whose check digits are right. One whose
 * check digits are right for no body names nothing, and its body is not read as an invoice number.
 */
function rfReferencesIn(text: string): Found[] {
  return [...text.matchAll(RF_START)].map((match) => {
    const start = match.index;
    const ends = bodyEnds(text, start + 4);
    const valid = ends.reverse().find((end) => isCreditorReference(compact(text.slice(start, end))));
    const end = valid ?? ends[0] ?? start + 4;
    return {
      at: start,
      end,
      invoice: valid === undefined ? undefined : invoiceOfBody(compact(text.slice(start + 4, end))),
    };
  });
}

const compact = (text: string) => text.replaceAll(" ", "").toUpperCase();

/** The invoice numbers a free text names, RF references and typed numbers, in the order found. */
function namedIn(text: string): string[] {
  const references = rfReferencesIn(text);
  const numbers = [...text.matchAll(NUMBER_IN_TEXT)]
    .filter((match) => !references.some((rf) => match.index < rf.end && rf.at < match.index + match[0].length))
    .map((match) => ({ at: match.index, invoice: invoiceNumber(match[1]!, match[2]!) }));
  return [...references, ...numbers].sort((a, b) => a.at - b.at).flatMap(({ invoice }) => (invoice ? [invoice] : []));
}

/**
 * Rule 1: the invoice numbers a transaction names, in the order found, each once: its structured
 * creditor reference (read only as an RF reference), then RF references and invoice numbers in its
 * remittance information and its end-to-end id. Whether they exist is for the caller to find out.
 */
export function referencesOf(transaction: Referencing): string[] {
  const named: string[] = [];
  const structured = transaction.creditorReference?.replaceAll(" ", "").toUpperCase();
  if (structured && isCreditorReference(structured)) {
    const invoice = invoiceOfBody(structured.slice(4));
    if (invoice) named.push(invoice);
  }
  for (const text of [transaction.remittanceInformation, transaction.endToEndId])
    if (text) named.push(...namedIn(text));
  return [...new Set(named)];
}

/** An invoice a transaction names, as the database has it. */
export interface NamedInvoice {
  id: string;
  number: string;
  customerId: string;
  /**
   * What it can take: gross minus what is allocated already, then its unpaid charges (part 18); an
   * invoice that is not open has none to take.
   */
  open: number;
  state: "open" | "paid" | "cancelled";
}

interface Sharing {
  allocations: { invoice: NamedInvoice; amount: number }[];
  /** The customer whose credit the transaction is: of the last invoice its money went to, or none. */
  customerId: string | null;
}

/**
 * Rule 2: the amount goes to the named open invoices in order, each up to its open amount plus its unpaid
 * charges (part 18: the open amount first, then the charges); a remainder
 * stays unapplied, a credit of the customer of the last invoice that took some (a named one that took
 * nothing says nothing of who paid: a wrong match is worse than none). None open: nothing.
 */
export function share(amount: number, named: NamedInvoice[]): Sharing {
  const open = named.filter((invoice) => invoice.state === "open" && invoice.open > 0);
  const allocations: Sharing["allocations"] = [];
  let left = amount;
  for (const invoice of open) {
    if (left === 0) break;
    const taken = Math.min(left, invoice.open);
    allocations.push({ invoice, amount: taken });
    left -= taken;
  }
  return { allocations, customerId: allocations.at(-1)?.invoice.customerId ?? null };
}
