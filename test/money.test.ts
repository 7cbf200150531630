import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCents, parsePercent, vatCents } from "../src/domain/money";
import { MAX_AMOUNT_CENTS, parseAmount } from "../src/schemas/formats";

const RUNS = 2_000;
const cents = fc.integer({ min: 0, max: MAX_AMOUNT_CENTS });
/** VAT rates as the variables may hold them: 0 to 999.99 percent, in hundredths. */
const rate = fc.integer({ min: 0, max: 99_999 });

/** The reference: net × rate / 10000 rounded half up, in BigInt, never a Number in between. */
function referenceVat(net: number, hundredths: number): bigint {
  const scaled = BigInt(net) * BigInt(hundredths);
  return (scaled + 5_000n) / 10_000n;
}

describe("money: parse and format", () => {
  it("round-trips every amount from 0.00 to 10000.00", () => {
    fc.assert(
      fc.property(cents, (amount) => {
        expect(parseAmount(formatCents(amount))).toBe(amount);
      }),
      { numRuns: RUNS },
    );
  });

  it("formats with two places and no leading zeros", () => {
    expect([0, 5, 50, 100, 123_450, 1_000_000].map(formatCents)).toStrictEqual([
      "0.00",
      "0.05",
      "0.50",
      "1.00",
      "1234.50",
      "10000.00",
    ]);
  });

  it.each([
    "",
    "1",
    "1.0",
    "1.000",
    "01.00",
    "00.50",
    "+1.00",
    "-1.00",
    "1,00",
    " 1.00",
    "1.00 ",
    "1e2",
    "10000.01",
    "100000.00",
    "١.٠٠",
    "0x10.00",
  ])("refuses %j", (text) => expect(parseAmount(text)).toBeUndefined());

  it("accepts exactly the form of docs/api.md part 12: ^(0|[1-9][0-9]{0,4})\\.[0-9]{2}$ up to 10000.00", () => {
    const form = /^(0|[1-9][0-9]{0,4})\.[0-9]{2}$/;
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9.]{1,9}$/), (text) => {
        const inRange = form.test(text) && Number(text.replace(".", "")) <= MAX_AMOUNT_CENTS;
        expect(parseAmount(text) !== undefined).toBe(inRange);
      }),
      { numRuns: RUNS },
    );
  });

  it("sums exactly: the sum of parsed amounts formats as the decimal sum", () => {
    fc.assert(
      fc.property(fc.array(cents, { maxLength: 500 }), (amounts) => {
        const total = amounts.reduce((sum, amount) => sum + parseAmount(formatCents(amount))!, 0);
        const reference = amounts.reduce((sum, amount) => sum + BigInt(amount), 0n);
        expect(BigInt(total)).toBe(reference);
        expect(formatCents(total)).toBe(`${reference / 100n}.${String(reference % 100n).padStart(2, "0")}`);
      }),
      { numRuns: 500 },
    );
  });
});

describe("money: VAT", () => {
  it("parses rates as the variables hold them", () => {
    expect(["0", "19", "7", "7.5", "7.50", "16.25", "999.99"].map(parsePercent)).toStrictEqual([
      0, 1900, 700, 750, 750, 1625, 99_999,
    ]);
    for (const bad of ["", "19%", "1000", "-7", "7.", ".5", "7.555", " 19", "19 ", "1e2", "٧"])
      expect(parsePercent(bad), bad).toBeUndefined();
  });

  it("rounds half up once, agreeing with a BigInt reference for any amount an invoice can have", () => {
    // Up to 500 entries of 10000.00 each.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 * MAX_AMOUNT_CENTS }), rate, (net, hundredths) => {
        expect(BigInt(vatCents(net, hundredths))).toBe(referenceVat(net, hundredths));
      }),
      { numRuns: RUNS },
    );
  });

  it("rounds the half cent up and anything below it down", () => {
    // 0.50 € at 19 %: 9.5 cents → 10; 0.52 € at 19 %: 9.88 → 10; 0.47 € at 19 %: 8.93 → 9;
    // 0.02 € at 7.5 %: 0.15 → 0
    expect([
      vatCents(50, 1900),
      vatCents(52, 1900),
      vatCents(47, 1900),
      vatCents(2, 750),
      vatCents(10, 5000),
    ]).toStrictEqual([10, 10, 9, 0, 5]);
    expect(vatCents(990, 1900)).toBe(188); // shipping 9.90 € → 1.881 € VAT → 1.88 €
  });
});
