// docs/api.md part 17: how a document reaches the buyer. What the API Worker needs to create a delivery
// in the batch that issues its document; the sending is the jobs Worker's (src/deliveries/).

/** The billing profile's `invoice_format`: null resolves per delivery (`formatFor`). */
export const INVOICE_FORMATS = ["pdf", "ubl", "cii"] as const;
export type InvoiceFormat = (typeof INVOICE_FORMATS)[number];

/** The billing profile's `invoice_delivery`: "email" (the default) or "none". */
export const INVOICE_DELIVERIES = ["email", "none"] as const;
export type InvoiceDelivery = (typeof INVOICE_DELIVERIES)[number];

/** What a delivery sends. Only invoices and credit notes create deliveries yet; reminders are part 18's. */
export const DELIVERY_DOCUMENTS = ["invoice", "credit_note", "reminder"] as const;
export type DeliveryDocument = (typeof DELIVERY_DOCUMENTS)[number];

export const DELIVERY_STATES = ["pending", "sent", "delivered", "bounced", "failed", "skipped"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A profile's format as a delivery fixes it: null is ubl for a public-sector buyer (Leitweg-ID), else pdf. */
export const formatFor = (format: InvoiceFormat | null, leitwegId: string | null): InvoiceFormat =>
  format ?? (leitwegId ? "ubl" : "pdf");
