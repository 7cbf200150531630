// Each invoice's amounts (docs/api.md parts 10, 12) in BigInt, not by the Worker's code: no shared mistake.

const AMOUNT = /^(0|[1-9][0-9]{0,4})\.([0-9]{2})$/;
const PERCENT = /^([0-9]{1,3})(?:\.([0-9]{1,2}))?$/;

/** Cents of a decimal string such as "1234.05". */
function cents(text) {
  const match = AMOUNT.exec(text);
  if (!match) throw new Error(`not an amount: ${JSON.stringify(text)}`);
  return BigInt(match[1]) * 100n + BigInt(match[2]);
}

/** "1234.05" of 123405n. */
const decimal = (value) => `${value / 100n}.${String(value % 100n).padStart(2, "0")}`;

/** A VAT rate such as "19" or "7.5" in hundredths of a percent (1900n, 750n). */
function hundredths(text) {
  const match = PERCENT.exec(text);
  if (!match) throw new Error(`not a VAT rate: ${JSON.stringify(text)}`);
  return BigInt(match[1]) * 100n + BigInt((match[2] ?? "").padEnd(2, "0"));
}

/** net × rate / 100, rounded half up to the cent: net × hundredths is in 1/10000 of a cent. */
const vat = (net, rate) => (net * hundredths(rate) + 5_000n) / 10_000n;

/** `{ net, gross }` of a voucher (the entries), production (cards × fee) or shipping (the fee) invoice. */
export function expectedAmounts(kind, entryAmounts, vars) {
  const [net, rate] =
    kind === "voucher"
      ? [entryAmounts.reduce((sum, amount) => sum + cents(amount), 0n), vars.VOUCHER_VAT_PERCENT]
      : [
          kind === "production"
            ? BigInt(entryAmounts.length) * cents(vars.CARD_PRODUCTION_FEE)
            : cents(vars.SHIPPING_FEE),
          vars.SERVICE_VAT_PERCENT,
        ];
  return { net: decimal(net), gross: decimal(net + vat(net, rate)) };
}

/** A card's value as a client would type it: mostly odd cents, now and then the smallest and largest allowed. */
export function randomAmount() {
  const roll = Math.random();
  if (roll < 0.04) return "1.00";
  if (roll < 0.08) return "10000.00";
  if (roll < 0.2) return `${1 + Math.floor(Math.random() * 200)}.00`;
  return decimal(100n + BigInt(Math.floor(Math.random() * 50_000)));
}
