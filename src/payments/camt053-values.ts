// The values of a camt.053 file that the service reads, each from the element's text (trimmed): amounts
// exactly, in cents, never through a float; ISO dates and date-times, as calendar dates. Each reader
// returns the value or throws a Problem saying what is wrong with the text, which the caller puts into
// a CamtError beside the element's position.

/** Why a camt.053 file is refused (CamtError.reason). */
export type CamtErrorReason = "not_xml" | "not_camt053" | "unsupported_version" | "refused" | "malformed";

/** A file refused: `reason` for the program, `message` for a person (it names what is wrong and where). */
export class CamtError extends Error {
  override readonly name = "CamtError";
  constructor(
    readonly reason: CamtErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** A value that is not what the schema allows: the message without its position; `detail` the TxDtls's index. */
export class Problem extends Error {
  constructor(
    message: string,
    readonly detail?: number,
  ) {
    super(message);
  }
}

/** A value as a refusal names it: cut after 40 characters (a 9 MiB value would make a 9 MiB error). */
const cut = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
/** The same, quoted as JSON. */
const quoted = (text: string): string => JSON.stringify(cut(text));

const AMOUNT = /^(\d+)(?:\.(\d+))?$/;
// 13 digits before the point keep every amount in cents below Number.MAX_SAFE_INTEGER.
const MAX_WHOLE_DIGITS = 13;

/** `text` (an ISO amount, `^\d+(\.\d+)?$`) in cents: "18.150" is 1815, "18.151" a problem. */
export function readCents(text: string): number {
  const match = AMOUNT.exec(text);
  if (!match) throw new Problem(`amount ${quoted(text)} is not a decimal amount`);
  const whole = match[1]!.replace(/^0+(?=\d)/, "");
  const fraction = match[2] ?? "";
  for (let i = 2; i < fraction.length; i++)
    if (fraction[i] !== "0") throw new Problem(`amount ${cut(text)} has a digit past the cent`);
  if (whole.length > MAX_WHOLE_DIGITS) throw new Problem(`amount ${cut(text)} is too large`);
  return Number(whole + fraction.slice(0, 2).padEnd(2, "0"));
}

const CURRENCY = /^[A-Z]{3}$/;

/** An ISO 4217 currency code as the schema has it: three capital letters. */
export function readCurrency(text: string | undefined): string {
  if (text === undefined) throw new Problem("amount has no currency (Ccy)");
  if (!CURRENCY.test(text)) throw new Problem(`currency ${quoted(text)} is not a currency code`);
  return text;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:Z|[+-]\d{2}:\d{2})?$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?$/;

function calendarDate(year: string, month: string, day: string): string | null {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (y < 1 || m < 1 || m > 12 || d < 1) return null;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = m === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
  return d <= days ? `${year}-${month}-${day}` : null;
}

/** An ISODate (`2026-11-20`, a time zone allowed) as YYYY-MM-DD. */
export function readDate(text: string, what: string): string {
  const match = DATE.exec(text);
  const date = match && calendarDate(match[1]!, match[2]!, match[3]!);
  if (!date) throw new Problem(`${what} ${quoted(text)} is not a calendar date`);
  return date;
}

/** The date part (YYYY-MM-DD, as written) of an ISODateTime (`2026-11-20T00:00:00`, zone and fraction allowed). */
export function readDateOfDateTime(text: string, what: string): string {
  const match = DATE_TIME.exec(text);
  const date = match && calendarDate(match[1]!, match[2]!, match[3]!);
  const [hours, minutes, seconds] = match ? [Number(match[4]), Number(match[5]), Number(match[6])] : [0, 0, 0];
  const midnight = hours === 24 && minutes === 0 && seconds === 0;
  if (!date || !((hours < 24 || midnight) && minutes < 60 && seconds < 60))
    throw new Problem(`${what} ${quoted(text)} is not a date-time`);
  return date;
}

/** A schema boolean (TrueFalseIndicator). */
export function readBoolean(text: string, what: string): boolean {
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new Problem(`${what} ${quoted(text)} is neither true nor false`);
}

/** CreditDebitCode: CRDT or DBIT. */
export function readCreditDebit(text: string | undefined): "credit" | "debit" {
  if (text === "CRDT") return "credit";
  if (text === "DBIT") return "debit";
  throw new Problem(
    text === undefined
      ? "no credit/debit indicator (CdtDbtInd)"
      : `credit/debit indicator ${quoted(text)} is neither CRDT nor DBIT`,
  );
}
