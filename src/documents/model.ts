// What an e-invoice shows: everything the renderers (UBL, CII, later the PDF) read, fixed when the
// invoice was issued (the seller's variables and the buyer's billing profile as they were then),
// plus the invoice's lines. Amounts are integer cents; rates are the configured percent strings.

export type VatCategory = "O" | "S" | "Z";

export interface PostalAddress {
  street: string;
  postcode: string;
  city: string;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string;
}

/** The seller: wrangler.toml's CREDITOR_* variables when the invoice was issued. */
export interface Seller extends PostalAddress {
  name: string;
  vatId: string;
  taxNumber: string | null;
  /** Commercial register entry, e.g. "HRB 123456" (names the seller on category-O documents). */
  registrationId: string;
  contactName: string;
  contactPhone: string;
  contactEmail: string;
  /** An e-mail address (BT-34, scheme EM). */
  electronicAddress: string;
  iban: string;
  bic: string | null;
  sepaCreditorId: string | null;
}

/** The buyer: the customer's billing profile when the invoice was issued. */
export interface Buyer extends PostalAddress {
  customerId: string;
  legalName: string;
  vatId: string | null;
  buyerReference: string | null;
  /** The buyer's electronic address (BT-49, scheme EM) when set. */
  email: string | null;
  directDebitIban: string | null;
  directDebitMandateReference: string | null;
}

export interface DocumentLine {
  position: number;
  description: string;
  quantity: number;
  unitPriceCents: number;
  /** quantity × unit price. */
  netCents: number;
  vatCategory: VatCategory;
  /** As configured: "19", "7.5", "0". */
  vatPercent: string;
}

export interface EInvoice {
  /** 380 commercial invoice, 381 credit note. */
  typeCode: "380" | "381";
  /** INV-YYYY-NNNNNN, or the CN- number of a credit note. */
  number: string;
  /** YYYY-MM-DD: the invoice's booked_on; a credit note's day of cancelled_at. */
  issueDate: string;
  /** YYYY-MM-DD: the invoice's due_on (a credit note has none). */
  dueDate: string | null;
  /** A credit note's invoice (BG-3). */
  precedingInvoice: { number: string; issueDate: string } | null;
  /** BT-10, resolved: the profile's buyer_reference, else the invoice's reference, else the customer id. */
  buyerReference: string;
  /** BT-13: the invoice's `reference`. */
  orderReference: string | null;
  /** BT-19: the invoice's `cost_center`. */
  accountingReference: string | null;
  /** BT-14: the card order id. */
  salesOrderReference: string;
  servicePeriod: { start: string; end: string } | null;
  paymentMethod: "bank_transfer" | "direct_debit";
  seller: Seller;
  buyer: Buyer;
  /** Ascending by position; at least one. Every line of one invoice has the same category and rate. */
  lines: DocumentLine[];
  /** Sum of the lines' net amounts. */
  netCents: number;
  /** net × rate / 100, rounded half up once (as the invoice's gross_amount - net_amount). */
  vatCents: number;
  grossCents: number;
}
