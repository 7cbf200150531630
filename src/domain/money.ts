// Money is EUR in integer cents, in the database and in the code; on the wire a decimal string with
// two places (docs/api.md parts 10 and 12). No amount ever passes through a fraction: VAT is computed
// on integers, and rounded half up once per invoice.

const PERCENT = /^([0-9]{1,3})(?:\.([0-9]{1,2}))?$/;

/** The wire form of an amount: "0.05", "1234.50". */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`not an amount in cents: ${cents}`);
  const text = String(cents).padStart(3, "0");
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** A VAT rate such as "19" or "7.5", in hundredths of a percent (1900, 750); undefined when malformed. */
export function parsePercent(text: string): number | undefined {
  const match = PERCENT.exec(text);
  return match ? Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0")) : undefined;
}

/** VAT on a net amount: net × rate / 100, rounded half up to the cent, in integers only. */
export function vatCents(netCents: number, rateHundredths: number): number {
  const scaled = netCents * rateHundredths; // in 1/10000 cents
  if (!Number.isSafeInteger(scaled) || scaled < 0)
    throw new RangeError(`VAT out of range: ${netCents} × ${rateHundredths}`);
  const remainder = scaled % 10_000;
  return (scaled - remainder) / 10_000 + (remainder >= 5_000 ? 1 : 0);
}
