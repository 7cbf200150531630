// The reminder letter's words in each document language (docs/api.md part 18): what the invoice's
// labels (labels.ts) do not say already. German by default, English on request, as the invoice was.
import type { DocumentLanguage } from "../../domain/einvoice";

/** What the texts name: dates and amounts as the language writes them. */
interface Facts {
  number: string;
  invoiceDate: string;
  due: string;
  payBy: string;
  total: string;
  fee: string;
  /** The day default began (levels 2 and 3). */
  since: string;
  consumer: boolean;
}

interface ReminderLabels {
  date: string;
  invoiceNumber: string;
  invoiceDate: string;
  defaultSince: string;
  heading: (title: string, number: string) => string;
  salutation: string;
  /** The letter's paragraphs of a level; the last of level 3 announces the court dunning procedure. */
  body: (level: 1 | 2 | 3, facts: Facts) => string[];
  gross: string;
  received: string;
  open: string;
  interest: (from: string, to: string) => string;
  interestBasis: (consumer: boolean, rate: string) => string;
  fee: string;
  total: string;
  account: { heading: string; period: string; days: string; open: string; rate: string; note: string };
  noVat: string;
  paid: string;
  questions: (phone: string, email: string) => string;
  closing: string;
}

const points = (consumer: boolean) => (consumer ? 5 : 9);

function bodyDe(level: 1 | 2 | 3, f: Facts): string[] {
  const invoice = `unsere Rechnung ${f.number} vom ${f.invoiceDate}`;
  if (level === 1)
    return [
      `${invoice} war am ${f.due} fällig. Bis heute haben wir den Rechnungsbetrag nicht vollständig erhalten; ` +
        "sicher ist die Zahlung nur übersehen worden. Bitte überweisen Sie den offenen Betrag von " +
        `${f.total} bis zum ${f.payBy}.`,
    ];
  const charges =
    level === 2
      ? "Wir berechnen Ihnen daher Verzugszinsen (§ 288 BGB)" +
        (f.consumer ? "." : ` und die Verzugspauschale von ${f.fee} (§ 288 Abs. 5 BGB).`)
      : "Die Verzugszinsen (§ 288 BGB) sind bis heute fortgeschrieben" +
        (f.consumer ? "." : "; die Verzugspauschale (§ 288 Abs. 5 BGB) berechnen wir nur einmal.");
  const claim = [
    `${level === 2 ? "trotz unserer Zahlungserinnerung" : "trotz Zahlungserinnerung und Mahnung"} ist ${invoice}, ` +
      `fällig am ${f.due}, ${level === 2 ? "noch" : "weiterhin"} nicht vollständig bezahlt. Seit dem ${f.since} ` +
      `befinden Sie sich in Verzug (§ 286 BGB). ${charges} Bitte überweisen Sie den Gesamtbetrag von ${f.total} ` +
      `bis ${level === 3 ? "spätestens " : ""}zum ${f.payBy}.`,
  ];
  if (level === 2) return claim;
  return [
    ...claim,
    `Dies ist unsere letzte Mahnung. Geht der Gesamtbetrag bis zum ${f.payBy} nicht bei uns ein, beantragen ` +
      "wir ohne weitere Ankündigung einen Mahnbescheid im gerichtlichen Mahnverfahren (§§ 688 ff. ZPO).",
  ];
}

function bodyEn(level: 1 | 2 | 3, f: Facts): string[] {
  const invoice = `our invoice ${f.number} of ${f.invoiceDate}`;
  if (level === 1)
    return [
      `${invoice} was due on ${f.due}. We have not yet received the full amount; perhaps the payment has been ` +
        `overlooked. Please transfer the open amount of ${f.total} by ${f.payBy}.`,
    ];
  const charges =
    level === 2
      ? "We therefore charge default interest (§ 288 BGB)" +
        (f.consumer ? "." : ` and the flat-rate default charge of ${f.fee} (§ 288 (5) BGB).`)
      : "Default interest (§ 288 BGB) is brought up to date" +
        (f.consumer ? "." : "; the flat-rate default charge (§ 288 (5) BGB) is charged once only.");
  const claim = [
    `${level === 2 ? "despite our payment reminder" : "despite our payment reminder and our reminder"}, ` +
      `${invoice}, due on ${f.due}, has ${level === 2 ? "not yet" : "still not"} been paid in full. You have been ` +
      `in default since ${f.since} (§ 286 BGB, German Civil Code). ${charges} Please transfer the total of ` +
      `${f.total} by ` +
      `${f.payBy}${level === 3 ? " at the latest" : ""}.`,
  ];
  if (level === 2) return claim;
  return [
    ...claim,
    `This is our final reminder. If the total has not reached us by ${f.payBy}, we will apply for a payment ` +
      "order in the court dunning procedure (gerichtliches Mahnverfahren, §§ 688 et seq. ZPO) " +
      "without further notice.",
  ];
}

export const REMINDER_LABELS: Record<DocumentLanguage, ReminderLabels> = {
  de: {
    date: "Datum",
    invoiceNumber: "Rechnungsnummer",
    invoiceDate: "Rechnungsdatum",
    defaultSince: "Verzug seit",
    heading: (title, number) => `${title} – Rechnung ${number}`,
    salutation: "Sehr geehrte Damen und Herren,",
    body: bodyDe,
    gross: "Rechnungsbetrag",
    received: "abzüglich erhaltener Zahlungen",
    open: "Offener Rechnungsbetrag",
    interest: (from, to) => `Verzugszinsen vom ${from} bis ${to}`,
    interestBasis: (consumer, rate) =>
      `Basiszinssatz (§ 247 BGB) + ${points(consumer)} Prozentpunkte, § 288 Abs. ${consumer ? 1 : 2} BGB; ` +
      `derzeit ${rate} p. a.`,
    fee: "Verzugspauschale (§ 288 Abs. 5 BGB)",
    total: "Gesamtbetrag",
    account: {
      heading: "Berechnung der Verzugszinsen",
      period: "Zeitraum",
      days: "Tage",
      open: "Offener Betrag €",
      rate: "Zinssatz p. a.",
      note:
        "Zinsen für jeden Tag auf den an diesem Tag offenen Betrag, zum Zinssatz seines Halbjahres; " +
        "Tage/365, keine Zinsen auf Zinsen (§ 289 BGB); die Summe ist einmal auf den Cent gerundet.",
    },
    noVat: "Verzugszinsen und Verzugspauschale sind Schadensersatz und unterliegen nicht der Umsatzsteuer.",
    paid: "Sollten Sie inzwischen gezahlt haben, betrachten Sie dieses Schreiben bitte als gegenstandslos.",
    questions: (phone, email) => `Bei Fragen zu dieser Forderung erreichen Sie uns unter ${phone} oder ${email}.`,
    closing: "Mit freundlichen Grüßen",
  },
  en: {
    date: "Date",
    invoiceNumber: "Invoice number",
    invoiceDate: "Invoice date",
    defaultSince: "In default since",
    heading: (title, number) => `${title} – invoice ${number}`,
    salutation: "Dear Sir or Madam,",
    body: bodyEn,
    gross: "Invoice amount",
    received: "less payments received",
    open: "Open invoice amount",
    interest: (from, to) => `Default interest from ${from} to ${to}`,
    interestBasis: (consumer, rate) =>
      `base rate (§ 247 BGB) + ${points(consumer)} percentage points, § 288 (${consumer ? 1 : 2}) BGB; ` +
      `currently ${rate} p.a.`,
    fee: "Flat-rate default charge (§ 288 (5) BGB)",
    total: "Total",
    account: {
      heading: "Calculation of default interest",
      period: "Period",
      days: "Days",
      open: "Open amount €",
      rate: "Rate p.a.",
      note:
        "Interest for each day on the amount open that day, at the rate of its half-year; actual days/365, " +
        "no interest on interest (§ 289 BGB); the sum is rounded to the cent once.",
    },
    noVat: "Default interest and the flat-rate charge are damages and not subject to VAT.",
    paid: "If you have paid in the meantime, please disregard this letter.",
    questions: (phone, email) =>
      `If you have any questions about this claim, please call ${phone} or write to ${email}.`,
    closing: "Yours faithfully",
  },
};
