import { parseAmount } from "../schemas/formats";
import type { InvoiceKind } from "./invoices";
import { parsePercent, vatCents } from "./money";

// CONTRACT part 10: what each of a card order's three invoices bills, and at which VAT rate. The
// fees and rates are `[vars]` (wrangler.toml); each has the contract's default when it is unset.
const BILLING_DEFAULTS = {
  VOUCHER_VAT_PERCENT: "0",
  SERVICE_VAT_PERCENT: "19",
  CARD_PRODUCTION_FEE: "2.50",
  SHIPPING_FEE: "9.90",
} as const;

export type BillingVariables = { [Name in keyof typeof BILLING_DEFAULTS]?: string };

/** A fee or VAT variable that is set but not of the contract's form: the invoice is not made. */
class MalformedBillingVariable extends Error {
  constructor(readonly variable: string) {
    super(`${variable} is malformed`);
    this.name = "MalformedBillingVariable";
  }
}

function read(
  vars: BillingVariables,
  name: keyof typeof BILLING_DEFAULTS,
  parse: (text: string) => number | undefined,
): number {
  const value = parse(vars[name] ?? BILLING_DEFAULTS[name]);
  if (value === undefined) throw new MalformedBillingVariable(name);
  return value;
}

/** What the order tells an invoice about its amount. */
interface BilledOrder {
  entriesCount: number;
  entriesAmount: number;
}

/**
 * Net and gross amount of an order's invoice of `kind`, in cents, from the variables as they are
 * now. Fees have an amount's form, "0.00" to "10000.00" (CONTRACT part 12).
 */
export function invoiceAmounts(
  kind: InvoiceKind,
  order: BilledOrder,
  vars: BillingVariables,
): { net: number; gross: number } {
  const [net, rate] =
    kind === "voucher"
      ? [order.entriesAmount, read(vars, "VOUCHER_VAT_PERCENT", parsePercent)]
      : [
          kind === "production"
            ? order.entriesCount * read(vars, "CARD_PRODUCTION_FEE", parseAmount)
            : read(vars, "SHIPPING_FEE", parseAmount),
          read(vars, "SERVICE_VAT_PERCENT", parsePercent),
        ];
  return { net, gross: net + vatCents(net, rate) };
}
