import { formatsOf } from "../documents/pdf/format";
import type { InvoiceFormat } from "../domain/deliveries";
import type { Buyer, DocumentLanguage, Seller } from "../domain/einvoice";
import { paymentReferenceOf, inGroupsOfFour } from "../domain/payment-reference";
import { earliestCollectionDate, isTarget2Day } from "../domain/target2";
import { addDays } from "../domain/time";
import type { InvoiceDeliveryRow, InvoiceRow } from "../db/schema";
import { reminderFileName } from "../db/reminders";
import type { ReminderRow } from "../schemas/reminder";

// docs/api.md part 17: the e-mail of a document, in the document's language (the buyer's
// document_language, kept on the invoice when it was issued): subject, text and its one attachment.

/** What the sender needs of the service's variables. */
interface Sender {
  /** DELIVERY_FROM: the address on the seller's sending domain. */
  from: string;
  /** CREDITOR_NAME: the From's display name. */
  name: string;
  /** CREDITOR_CONTACT_EMAIL. */
  replyTo: string;
  /** Today, the business day the message is written (a direct debit's collection date counts from it). */
  today: string;
  /** DIRECT_DEBIT_LEAD_DAYS (docs/api.md part 16). */
  leadDays: number;
}

const FORMAT_NAMES: Record<InvoiceFormat, Record<DocumentLanguage, string>> = {
  pdf: { de: "ZUGFeRD-PDF (EN 16931)", en: "ZUGFeRD PDF (EN 16931)" },
  ubl: { de: "XRechnung (UBL)", en: "XRechnung (UBL)" },
  cii: { de: "XRechnung (CII)", en: "XRechnung (CII)" },
};

/**
 * The day a direct debit of an invoice due on `due` is collected, as the pre-notification names it: the
 * first TARGET2 business day on or after the due date that a collection made today may take (never
 * before the due date; docs/api.md part 16's earliest collection date when that is later).
 */
function collectionDateFor(due: string, today: string, leadDays: number): string {
  let day = earliestCollectionDate(today, leadDays);
  if (due > day) for (day = due; !isTarget2Day(day); day = addDays(day, 1));
  return day;
}

interface Composed {
  subject: string;
  text: string;
  filename: string;
  contentType: "application/pdf" | "application/xml";
}

/** The subject, text and attachment name of `delivery` of `invoice`. */
/** The closing lines of every message: the greeting, the seller and whom to answer. */
const signOff = (de: boolean, seller: Seller, sender: Sender) =>
  [
    de ? "Mit freundlichen Grüßen" : "Kind regards",
    seller.name,
    seller.contactName,
    seller.contactPhone,
    sender.replyTo,
  ]
    .filter(Boolean)
    .join("\n");

export function compose(invoice: InvoiceRow, delivery: InvoiceDeliveryRow, sender: Sender): Composed {
  const seller = JSON.parse(invoice.seller!) as Seller;
  const buyer = JSON.parse(invoice.buyer!) as Partial<Buyer>;
  const language: DocumentLanguage = buyer.documentLanguage ?? "de";
  const f = formatsOf(language);
  const de = language === "de";
  const creditNote = delivery.document === "credit_note";
  const number = creditNote ? invoice.cancellationNumber! : invoice.number;
  const extension = delivery.format === "pdf" ? "pdf" : "xml";
  const filename = `${number}.${extension}`;
  const amount = de ? `${f.money(invoice.grossAmount!)} EUR` : `EUR ${f.money(invoice.grossAmount!)}`;
  const kind = creditNote ? (de ? "Rechnungskorrektur" : "Credit note") : de ? "Rechnung" : "Invoice";
  const subject = `${kind} ${number} ${de ? "der" : "from"} ${seller.name}`;
  const attached = de
    ? `Das Dokument ist als ${FORMAT_NAMES[delivery.format].de} angehängt: ${filename}`
    : `The document is attached as ${FORMAT_NAMES[delivery.format].en}: ${filename}`;

  const issued = f.day(invoice.bookedOn!);
  const body: string[] = [];
  if (creditNote) {
    const cancelledOn = invoice.cancelledOn ?? invoice.cancelledAt!.slice(0, 10);
    body.push(
      de
        ? `anbei erhalten Sie die Rechnungskorrektur ${number} vom ${f.day(cancelledOn)} zu unserer Rechnung ` +
            `${invoice.number} vom ${issued} über ${amount}. Die Rechnung ist damit storniert; Sie brauchen sie ` +
            "nicht zu bezahlen."
        : `Please find attached credit note ${number} of ${f.day(cancelledOn)} for our invoice ${invoice.number} ` +
            `of ${issued} for ${amount}. It cancels the invoice; there is nothing to pay.`,
    );
  } else {
    body.push(
      de
        ? `anbei erhalten Sie unsere Rechnung ${number} vom ${f.day(invoice.bookedOn!)} über ${amount}.`
        : `Please find attached our invoice ${number} of ${f.day(invoice.bookedOn!)} for ${amount}.`,
    );
    const due = invoice.dueOn!;
    if (invoice.paymentMethod === "direct_debit") {
      // The SEPA Core pre-notification: amount, collection date, mandate reference, creditor id.
      const collection = collectionDateFor(due, sender.today, sender.leadDays);
      const account = buyer.directDebitIban ? inGroupsOfFour(buyer.directDebitIban) : "";
      body.push(
        de
          ? [
              "Vorabankündigung (Pre-Notification) der SEPA-Lastschrift: Wir ziehen den Betrag von " +
                `${amount} am ${f.day(collection)} von Ihrem Konto ${account} ein.`,
              `Mandatsreferenz: ${buyer.directDebitMandateReference}`,
              `Gläubiger-Identifikationsnummer: ${seller.sepaCreditorId}`,
              "Bitte sorgen Sie zu diesem Termin für ausreichende Deckung.",
            ].join("\n")
          : [
              `Pre-notification of the SEPA direct debit: we will collect ${amount} from your account ${account} ` +
                `on ${f.day(collection)}.`,
              `Mandate reference: ${buyer.directDebitMandateReference}`,
              `Creditor identifier: ${seller.sepaCreditorId}`,
              "Please make sure the account is funded on that day.",
            ].join("\n"),
      );
    } else {
      const reference = inGroupsOfFour(paymentReferenceOf(invoice.number));
      body.push(
        de
          ? [
              `Bitte überweisen Sie den Betrag bis zum ${f.day(due)} auf unser Konto:`,
              `Empfänger: ${seller.name}`,
              `IBAN: ${inGroupsOfFour(seller.iban)}`,
              ...(seller.bic ? [`BIC: ${seller.bic}`] : []),
              `Verwendungszweck: ${reference}`,
            ].join("\n")
          : [
              `Please transfer the amount by ${f.day(due)} to our account:`,
              `Beneficiary: ${seller.name}`,
              `IBAN: ${inGroupsOfFour(seller.iban)}`,
              ...(seller.bic ? [`BIC: ${seller.bic}`] : []),
              `Reference: ${reference}`,
            ].join("\n"),
      );
    }
  }
  body.push(attached);
  const text = [de ? "Guten Tag," : "Dear Sir or Madam,", ...body, signOff(de, seller, sender)].join("\n\n");
  return {
    subject,
    text: `${text}\n`,
    filename,
    contentType: extension === "pdf" ? "application/pdf" : "application/xml",
  };
}

/**
 * The e-mail of a reminder (docs/api.md part 18): the subject names its title, the invoice's number and
 * the seller; the text the sum it asks for, by when and how to pay it (a credit transfer with the
 * invoice's RF reference, whatever the invoice's method); its one attachment `<invoice number>-M<level>.pdf`.
 */
export function composeReminder(invoice: InvoiceRow, reminder: ReminderRow, sender: Sender): Composed {
  const seller = JSON.parse(invoice.seller!) as Seller;
  const buyer = JSON.parse(invoice.buyer!) as Partial<Buyer>;
  const language: DocumentLanguage = buyer.documentLanguage ?? "de";
  const f = formatsOf(language);
  const de = language === "de";
  const eur = (cents: number) => (de ? `${f.money(cents)} EUR` : `EUR ${f.money(cents)}`);
  const filename = reminderFileName(reminder);
  const subject = de
    ? `${reminder.title} zur Rechnung ${invoice.number} der ${seller.name}`
    : `${reminder.title} for invoice ${invoice.number} from ${seller.name}`;
  const reference = inGroupsOfFour(paymentReferenceOf(invoice.number));
  const charges = reminder.interestAmount + reminder.feeAmount;
  const claim = de
    ? `unsere Rechnung ${invoice.number} vom ${f.day(invoice.bookedOn!)}, fällig am ${f.day(invoice.dueOn)}, ist ` +
      `noch offen: ${eur(reminder.openAmount)}.` +
      (charges > 0
        ? ` Hinzu kommen Verzugszinsen von ${eur(reminder.interestAmount)}` +
          (reminder.feeAmount > 0 ? ` und die Verzugspauschale von ${eur(reminder.feeAmount)}` : "") +
          ` (§ 288 BGB), zusammen ${eur(reminder.totalAmount)}.`
        : "")
    : `our invoice ${invoice.number} of ${f.day(invoice.bookedOn!)}, due on ${f.day(invoice.dueOn)}, is still ` +
      `open: ${eur(reminder.openAmount)}.` +
      (charges > 0
        ? ` Default interest of ${eur(reminder.interestAmount)}` +
          (reminder.feeAmount > 0 ? ` and the flat fee of ${eur(reminder.feeAmount)}` : "") +
          ` (section 288 BGB) come on top, ${eur(reminder.totalAmount)} in all.`
        : "");
  const pay = de
    ? [
        `Bitte überweisen Sie ${eur(reminder.totalAmount)} bis zum ${f.day(reminder.payBy)} auf unser Konto:`,
        `Empfänger: ${seller.name}`,
        `IBAN: ${inGroupsOfFour(seller.iban)}`,
        ...(seller.bic ? [`BIC: ${seller.bic}`] : []),
        `Verwendungszweck: ${reference}`,
      ].join("\n")
    : [
        `Please transfer ${eur(reminder.totalAmount)} by ${f.day(reminder.payBy)} to our account:`,
        `Beneficiary: ${seller.name}`,
        `IBAN: ${inGroupsOfFour(seller.iban)}`,
        ...(seller.bic ? [`BIC: ${seller.bic}`] : []),
        `Reference: ${reference}`,
      ].join("\n");
  const court =
    reminder.level === 3
      ? [
          de
            ? "Geht die Zahlung bis dahin nicht ein, beantragen wir ohne weitere Ankündigung den Erlass eines " +
              "Mahnbescheids (gerichtliches Mahnverfahren)."
            : "If payment is not received by then, we will apply for a court order for payment " +
              "(gerichtliches Mahnverfahren) without further notice.",
        ]
      : [];
  const paid = de
    ? "Sollten Sie inzwischen bezahlt haben, betrachten Sie dieses Schreiben bitte als gegenstandslos."
    : "If you have paid in the meantime, please disregard this letter.";
  const attached = de
    ? `Das Schreiben ist als PDF angehängt: ${filename}`
    : `The letter is attached as a PDF: ${filename}`;
  const text = [
    de ? "Guten Tag," : "Dear Sir or Madam,",
    claim,
    pay,
    ...court,
    paid,
    attached,
    signOff(de, seller, sender),
  ].join("\n\n");
  return { subject, text: `${text}\n`, filename, contentType: "application/pdf" };
}
