import { parseAmount } from "../schemas/formats";
import { isEuMember } from "./countries";
import type { DocumentLanguage, VatCategory } from "./einvoice";
import type { InvoiceKind } from "./invoices";
import { parsePercent, vatCents } from "./money";
import { DEFAULT_TIME_ZONE, isTimeZone } from "./time";

// docs/api.md parts 10, 13 and 14: what each of a card order's three invoices bills, at which VAT
// category and rate, and on which calendar. The fees, rates and settings are `[vars]` (wrangler.toml);
// each has its default when it is unset.
const BILLING_DEFAULTS = {
  VOUCHER_VAT_PERCENT: "0",
  SERVICE_VAT_PERCENT: "19",
  CARD_PRODUCTION_FEE: "2.50",
  SHIPPING_FEE: "9.90",
  FEE_SUPPLY_KIND: "goods",
  BUSINESS_TIME_ZONE: DEFAULT_TIME_ZONE,
  // docs/api.md part 16: TARGET2 days between today and a collection date (SEPA Core's D-1).
  DIRECT_DEBIT_LEAD_DAYS: "1",
} as const;

export type BillingVariables = { [Name in keyof typeof BILLING_DEFAULTS]?: string };

/** A fee, VAT or seller variable that is missing or not of the form docs/api.md gives: the invoice is not made. */
export class MalformedBillingVariable extends Error {
  constructor(readonly variable: string) {
    super(`${variable} is malformed`);
    this.name = "MalformedBillingVariable";
  }
}

function read<T>(
  vars: BillingVariables,
  name: keyof typeof BILLING_DEFAULTS,
  parse: (text: string) => T | undefined,
): T {
  const value = parse(vars[name] ?? BILLING_DEFAULTS[name]);
  if (value === undefined) throw new MalformedBillingVariable(name);
  return value;
}

/** The IANA zone whose calendar dates invoices and numbers them (docs/api.md part 14). */
export const businessTimeZone = (vars: BillingVariables): string =>
  read(vars, "BUSINESS_TIME_ZONE", (zone) => (isTimeZone(zone) ? zone : undefined));

/** TARGET2 days a collection date must lie ahead (docs/api.md part 16): a whole number, 0 to 10. */
export const directDebitLeadDays = (vars: BillingVariables): number =>
  read(vars, "DIRECT_DEBIT_LEAD_DAYS", (text) => (/^(10|[0-9])$/.test(text) ? Number(text) : undefined));

/** What the order tells an invoice about its amount. */
interface BilledOrder {
  entriesCount: number;
  entriesAmount: number;
}

/** What the buyer's billing profile tells an invoice: where the buyer is, and its language. */
interface BilledBuyer {
  countryCode: string;
  documentLanguage: DocumentLanguage;
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
  vatCategory: VatCategory;
  /** The rate as configured, e.g. "19"; "0" for the exempt categories. */
  vatPercent: string;
  feeLine?: FeeLine;
}

/** The descriptions of the lines, in the invoice's language (docs/api.md part 14). */
export const LINE_TEXTS = {
  de: { voucher: "Gutscheinkarte", production: "Kartenproduktion", shipping: "Versand" },
  en: { voucher: "Voucher card", production: "Card production", shipping: "Shipping" },
} as const satisfies Record<DocumentLanguage, Record<InvoiceKind, string>>;

const SUPPLY_KINDS = ["goods", "services"];

/**
 * The VAT of a fee, by where the buyer is and what the fees pay for (docs/api.md part 14): at home the
 * standard rate; to a business in another EU state an exempt intra-community supply of goods (K) or a
 * service under reverse charge (AE); outside the EU an exempt export (G) or a service not taxable here (O).
 */
function feeCategory(buyerCountry: string, vars: BillingVariables): VatCategory {
  const goods = read(vars, "FEE_SUPPLY_KIND", (kind) => (SUPPLY_KINDS.includes(kind) ? kind : undefined)) === "goods";
  if (buyerCountry === "DE") return "S";
  if (isEuMember(buyerCountry)) return goods ? "K" : "AE";
  return goods ? "G" : "O";
}

/**
 * What `order`'s invoice of `kind` bills to `buyer`, from the variables as they are now (docs/api.md
 * parts 10, 13 and 14). Fees have an amount's form, "0.00" to "10000.00" (docs/api.md part 12); the
 * service's rate must be positive (Germany has no zero rate for these supplies).
 */
export function invoiceTerms(
  kind: InvoiceKind,
  order: BilledOrder,
  buyer: BilledBuyer,
  vars: BillingVariables,
): InvoiceTerms {
  const texts = LINE_TEXTS[buyer.documentLanguage];
  if (kind === "voucher") {
    const rate = read(vars, "VOUCHER_VAT_PERCENT", parsePercent);
    const net = order.entriesAmount;
    return {
      net,
      gross: net + vatCents(net, rate),
      vatCategory: rate > 0 ? "S" : "O",
      vatPercent: vars.VOUCHER_VAT_PERCENT ?? BILLING_DEFAULTS.VOUCHER_VAT_PERCENT,
    };
  }
  const rate = read(vars, "SERVICE_VAT_PERCENT", (text) => {
    const value = parsePercent(text);
    return value !== undefined && value > 0 ? value : undefined;
  });
  const feeLine: FeeLine =
    kind === "production"
      ? {
          description: texts.production,
          quantity: order.entriesCount,
          unitPrice: read(vars, "CARD_PRODUCTION_FEE", parseAmount),
        }
      : { description: texts.shipping, quantity: 1, unitPrice: read(vars, "SHIPPING_FEE", parseAmount) };
  const net = feeLine.quantity * feeLine.unitPrice;
  const vatCategory = feeCategory(buyer.countryCode, vars);
  if (vatCategory !== "S") return { net, gross: net, vatCategory, vatPercent: "0", feeLine };
  return {
    net,
    gross: net + vatCents(net, rate),
    vatCategory,
    vatPercent: vars.SERVICE_VAT_PERCENT ?? BILLING_DEFAULTS.SERVICE_VAT_PERCENT,
    feeLine,
  };
}
