// The PDF's words in each document language (docs/api.md part 14: German by default, English on
// request). What the XML documents say too (exemption reasons, payment terms) comes from semantic.ts.
import type { DocumentLanguage, VatCategory } from "../../domain/einvoice";

interface Labels {
  title: { "380": string; "381": string };
  continued: string;
  number: { "380": string; "381": string };
  date: { "380": string; "381": string };
  cancels: string;
  of: (invoice: string, date: string) => string;
  due: string;
  supplyDate: string;
  supplyPeriod: string;
  leitwegId: string;
  buyerReference: string;
  order: string;
  costCenter: string;
  salesOrder: string;
  customer: string;
  deliverTo: [string, string];
  vatId: string;
  intro: string;
  reversal: (invoice: string, date: string) => string;
  columns: { position: string; description: string; quantity: string; price: string; vat: string; net: string };
  net: string;
  vat: (category: VatCategory, rate: string) => string;
  gross: string;
  breakdown: { heading: string; category: string; rate: string; net: string; vat: string };
  categories: Record<VatCategory, string>;
  exemption: string;
  payment: string;
  transfer: (amount: string, due: string | null) => string;
  debit: (amount: string, due: string | null) => string;
  accountHolder: string;
  mandate: string;
  creditorId: string;
  remittance: string;
  /** Under the EPC QR code of a credit transfer. */
  scan: string;
  phone: string;
  taxNumber: string;
  page: (page: number, pages: number) => string;
}

const VAT_NOTE_DE: Partial<Record<VatCategory, string>> = {
  O: "nicht steuerbar",
  K: "steuerfrei",
  G: "steuerfrei",
  AE: "Steuerschuldnerschaft des Leistungsempfängers",
};
const VAT_NOTE_EN: Partial<Record<VatCategory, string>> = {
  O: "not subject to VAT",
  K: "exempt",
  G: "exempt",
  AE: "reverse charge",
};

export const LABELS: Record<DocumentLanguage, Labels> = {
  de: {
    title: { "380": "Rechnung", "381": "Stornorechnung" },
    continued: "(Fortsetzung)",
    number: { "380": "Rechnungsnummer", "381": "Stornorechnung Nr." },
    date: { "380": "Rechnungsdatum", "381": "Datum" },
    cancels: "Zur Rechnung",
    of: (invoice, date) => `${invoice} vom ${date}`,
    due: "Fällig am",
    supplyDate: "Leistungsdatum",
    supplyPeriod: "Leistungszeitraum",
    leitwegId: "Leitweg-ID",
    buyerReference: "Ihre Referenz",
    order: "Ihre Bestellung",
    costCenter: "Kostenstelle",
    salesOrder: "Unser Auftrag",
    customer: "Kundennummer",
    deliverTo: ["Lieferanschrift", "wie Rechnungsanschrift"],
    vatId: "USt-IdNr.",
    intro: "Für die folgenden Leistungen berechnen wir Ihnen:",
    reversal: (invoice, date) => `Diese Stornorechnung hebt die Rechnung ${invoice} vom ${date} vollständig auf.`,
    columns: {
      position: "Pos.",
      description: "Beschreibung",
      quantity: "Menge",
      price: "Einzelpreis €",
      vat: "USt.",
      net: "Betrag €",
    },
    net: "Summe netto",
    vat: (category, rate) => `Umsatzsteuer ${VAT_NOTE_DE[category] ? `(${VAT_NOTE_DE[category]})` : rate}`,
    gross: "Gesamtbetrag",
    breakdown: {
      heading: "Umsatzsteueraufstellung",
      category: "Kategorie",
      rate: "Steuersatz",
      net: "Nettobetrag €",
      vat: "Steuerbetrag €",
    },
    categories: {
      S: "S – Normalsatz",
      Z: "Z – Nullsatz",
      O: "O – nicht steuerbar",
      K: "K – innergemeinschaftliche Lieferung",
      AE: "AE – Steuerschuldnerschaft des Leistungsempfängers",
      G: "G – Ausfuhrlieferung",
    },
    exemption: "Befreiungsgrund",
    payment: "Zahlung",
    transfer: (amount, due) =>
      `Bitte überweisen Sie ${amount}${due ? ` bis zum ${due}` : ""} ohne Abzug auf dieses Konto:`,
    debit: (amount, due) =>
      `Den Betrag von ${amount} ziehen wir${due ? ` zum ${due}` : ""} per SEPA-Lastschrift von Ihrem Konto ein.`,
    accountHolder: "Kontoinhaber",
    mandate: "Mandatsreferenz",
    creditorId: "Gläubiger-ID",
    remittance: "Verwendungszweck",
    scan: "Mit der Banking-App scannen",
    phone: "Tel.",
    taxNumber: "Steuernummer",
    page: (page, pages) => `Seite ${page} von ${pages}`,
  },
  en: {
    title: { "380": "Invoice", "381": "Cancellation invoice" },
    continued: "(continued)",
    number: { "380": "Invoice number", "381": "Cancellation no." },
    date: { "380": "Invoice date", "381": "Date" },
    cancels: "Cancels invoice",
    of: (invoice, date) => `${invoice} of ${date}`,
    due: "Due on",
    supplyDate: "Date of supply",
    supplyPeriod: "Period of supply",
    leitwegId: "Leitweg-ID",
    buyerReference: "Your reference",
    order: "Your order",
    costCenter: "Cost center",
    salesOrder: "Our order",
    customer: "Customer number",
    deliverTo: ["Delivery address", "as billing address"],
    vatId: "VAT ID",
    intro: "We invoice you for the following:",
    reversal: (invoice, date) => `This cancellation invoice reverses invoice ${invoice} of ${date} in full.`,
    columns: {
      position: "No.",
      description: "Description",
      quantity: "Qty",
      price: "Unit price €",
      vat: "VAT",
      net: "Amount €",
    },
    net: "Total net",
    vat: (category, rate) => `VAT ${VAT_NOTE_EN[category] ? `(${VAT_NOTE_EN[category]})` : rate}`,
    gross: "Total",
    breakdown: { heading: "VAT breakdown", category: "Category", rate: "Rate", net: "Net €", vat: "VAT €" },
    categories: {
      S: "S – standard rate",
      Z: "Z – zero rate",
      O: "O – not subject to VAT",
      K: "K – intra-community supply",
      AE: "AE – reverse charge",
      G: "G – export",
    },
    exemption: "Exemption reason",
    payment: "Payment",
    transfer: (amount, due) => `Please transfer ${amount}${due ? ` by ${due}` : ""} without deduction to this account:`,
    debit: (amount, due) =>
      `We will collect ${amount}${due ? ` on ${due}` : ""} from your account by SEPA direct debit.`,
    accountHolder: "Account holder",
    mandate: "Mandate reference",
    creditorId: "Creditor ID",
    remittance: "Reference",
    scan: "Scan with your banking app",
    phone: "Phone",
    taxNumber: "Tax number",
    page: (page, pages) => `Page ${page} of ${pages}`,
  },
};
