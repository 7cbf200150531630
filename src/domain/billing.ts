import type { VatCategory } from "../documents/model";
import { parseAmount } from "../schemas/formats";
import type { InvoiceKind } from "./invoices";
import { parsePercent, vatCents } from "./money";

// docs/api.md part 10: what each of a card order's three invoices bills, and at which VAT rate. The
// fees and rates are `[vars]` (wrangler.toml); each has the default of that part when it is unset.
const BILLING_DEFAULTS = {
  VOUCHER_VAT_PERCENT: "0",
  SERVICE_VAT_PERCENT: "19",
  CARD_PRODUCTION_FEE: "2.50",
  SHIPPING_FEE: "9.90",
} as const;

export type BillingVariables = { [Name in keyof typeof BILLING_DEFAULTS]?: string };

/** A fee, VAT or seller variable that is missing or not of the form docs/api.md gives: the invoice is not made. */
export class MalformedBillingVariable extends Error {
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

/** A line of a fee invoice (a voucher invoice has one line per entry, made from the entries). */
interface FeeLine {
  description: string;
  quantity: number;
  unitPrice: number;
}

/** What an invoice of `kind` bills: its amounts in cents, its VAT category and rate, and its fee line. */
interface InvoiceTerms {
  net: number;
  gross: number;
  /** O: not subject to VAT (a voucher's value at 0%); Z: a fee at 0%; S: a fee or voucher at a positive rate. */
  vatCategory: VatCategory;
  /** The rate as configured, e.g. "19", "0". */
  vatPercent: string;
  feeLine?: FeeLine;
}

/**
 * What `order`'s invoice of `kind` bills, from the variables as they are now (docs/api.md parts 10 and
 * 13). Fees have an amount's form, "0.00" to "10000.00" (docs/api.md part 12).
 */
export function invoiceTerms(kind: InvoiceKind, order: BilledOrder, vars: BillingVariables): InvoiceTerms {
  const rateVariable = kind === "voucher" ? "VOUCHER_VAT_PERCENT" : "SERVICE_VAT_PERCENT";
  const rate = read(vars, rateVariable, parsePercent);
  const vatPercent = vars[rateVariable] ?? BILLING_DEFAULTS[rateVariable];
  const vatCategory = rate > 0 ? "S" : kind === "voucher" ? "O" : "Z";
  const feeLine: FeeLine | undefined =
    kind === "production"
      ? {
          description: "Card production",
          quantity: order.entriesCount,
          unitPrice: read(vars, "CARD_PRODUCTION_FEE", parseAmount),
        }
      : kind === "shipping"
        ? { description: "Shipping", quantity: 1, unitPrice: read(vars, "SHIPPING_FEE", parseAmount) }
        : undefined;
  const net = feeLine ? feeLine.quantity * feeLine.unitPrice : order.entriesAmount;
  return { net, gross: net + vatCents(net, rate), vatCategory, vatPercent, feeLine };
}
