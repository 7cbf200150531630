// The page(s) of a reminder letter as a person reads it (docs/api.md part 18), in the invoice's language:
// the seller's letterhead, the buyer's address (DIN 5008's window) and the particulars (date, the
// invoice's number, date and due date, default since), the title, the letter, the amounts (open amount,
// for levels 2 and 3 the interest with its rate, period and legal basis, and the fee; the total), how the
// interest is made up, the payment block with the GiroCode for the total (payment-block.ts), and on every
// page the footer of the invoice's PDF: the seller's address, managing directors, contact, bank, tax ids
// and register, and the page number. sheet.ts draws it.
import type { ReminderFigures } from "../../domain/dunning-reminder";
import type { Buyer, Seller } from "../../domain/einvoice";
import { percentOf } from "../../domain/interest";
import { type Payment, present } from "../semantic";
import type { Fonts } from "./font";
import { type Formats, formatsOf } from "./format";
import { LABELS } from "./labels";
import { paymentBlock } from "./payment-block";
import { reminderFooter } from "./reminder-footer";
import { REMINDER_LABELS } from "./reminder-labels";
import { AREA, BODY, Sheet } from "./sheet";

/** What the letter shows. */
export interface ReminderLetter {
  language: "de" | "en";
  seller: Seller;
  buyer: Buyer;
  invoice: { number: string; issueDate: string; dueDate: string; reference: string | null; grossCents: number };
  /** The invoice's RF reference (docs/api.md part 15). */
  paymentReference: string;
  reminder: ReminderFigures;
}

const WIDTH = AREA.right - AREA.left;
/** As the invoice's (invoice-pages.ts): letterhead, address window, particulars. */
const HEAD = { top: 790, addressTop: 728, particularsLabel: 300, particularsValue: 383 };
/** The amounts' labels end short of this; the interest table's right edges. */
const AMOUNTS = { label: 400, rule: 330 };
const ACCOUNT = { days: 280, open: 400, rate: AREA.right };
/** A text whose references stay on one line: "§ 288", "Abs. 5", "40,00 €" (sheet.ts breaks at spaces only). */
const kept = (text: string) => text.replace(/(§§?|Abs\.|\(\d\)) (?=\S)/g, "$1\u00a0").replace(/ €/g, "\u00a0€");

/** The pages' content streams and the fonts they use. */
export function layoutReminder(letter: ReminderLetter, fonts: Fonts): { pages: string[]; fonts: Set<string> } {
  const page = new ReminderPage(letter, fonts);
  page.letterhead();
  page.text();
  page.amounts();
  page.interestAccount();
  page.payment();
  page.closing();
  return { pages: page.sheet.finish((sheet, n, of) => page.footer(sheet, n, of)), fonts: page.sheet.used };
}

/** "1. Mahnung – Rechnung INV-…": the heading and the file's title. */
export const reminderTitleOf = (letter: ReminderLetter) =>
  REMINDER_LABELS[letter.language].heading(letter.reminder.title, letter.invoice.number);

class ReminderPage {
  readonly sheet: Sheet;
  private readonly labels: (typeof REMINDER_LABELS)[keyof typeof REMINDER_LABELS];
  private readonly f: Formats;

  constructor(
    private readonly letter: ReminderLetter,
    fonts: Fonts,
  ) {
    this.labels = REMINDER_LABELS[letter.language];
    this.f = formatsOf(letter.language);
    this.sheet = new Sheet(fonts, `${reminderTitleOf(letter)} ${LABELS[letter.language].continued}`);
  }

  private euro = (cents: number) => `${this.f.money(cents)}\u00a0€`;

  letterhead() {
    const { sheet, letter, labels, f } = this;
    const { seller, buyer, invoice, reminder } = letter;
    const invoiceLabels = LABELS[letter.language];
    let top = HEAD.top;
    for (const line of sheet.wrap(seller.name, WIDTH, 15, "bold")) {
      sheet.text(AREA.left, top, line, { bold: true, size: 15, fit: WIDTH });
      top -= 17;
    }
    for (const line of sheet.wrap(`${seller.street} · ${seller.postcode} ${seller.city}`, WIDTH)) {
      sheet.text(AREA.left, top + 2, line, { grey: true, fit: WIDTH });
      top -= BODY.leading;
    }
    let y = Math.min(HEAD.addressTop, top - 24);
    const particularsTop = y;
    const width = HEAD.particularsLabel - AREA.left - 12;
    const sender = `${seller.name} · ${seller.street} · ${seller.postcode} ${seller.city}`;
    for (const line of sheet.wrap(sender, width, 6.5)) {
      sheet.text(AREA.left, y, line, { size: 6.5, grey: true, fit: width });
      y -= 8;
    }
    y -= 8;
    const address = [
      buyer.legalName,
      buyer.street,
      `${buyer.postcode} ${buyer.city}`,
      ...(buyer.countryCode === seller.countryCode ? [] : [f.country(buyer.countryCode)]),
    ];
    for (const line of address.flatMap((part) => sheet.wrap(part, width, 10))) {
      sheet.text(AREA.left, y, line, { size: 10, fit: width });
      y -= 12.5;
    }
    const rows: [string, string | null][] = [
      [labels.date, f.day(reminder.issuedOn)],
      [labels.invoiceNumber, invoice.number],
      [labels.invoiceDate, f.day(invoice.issueDate)],
      [invoiceLabels.due, f.day(invoice.dueDate)],
      [labels.defaultSince, reminder.defaultSince && f.day(reminder.defaultSince)],
      [invoiceLabels.leitwegId, present(buyer.leitwegId) ? buyer.leitwegId : null],
      [invoiceLabels.buyerReference, present(buyer.buyerReference) ? buyer.buyerReference : null],
      [invoiceLabels.order, present(invoice.reference) ? invoice.reference : null],
      [invoiceLabels.customer, buyer.customerId],
    ];
    let right = particularsTop;
    const valueWidth = AREA.right - HEAD.particularsValue;
    for (const [label, value] of rows) {
      if (value === null) continue;
      sheet.text(HEAD.particularsLabel, right, label, { grey: true });
      for (const line of sheet.wrap(value, valueWidth)) {
        sheet.text(HEAD.particularsValue, right, line, { fit: valueWidth });
        right -= BODY.leading;
      }
    }
    sheet.y = Math.min(y, right) - 20;
    sheet.text(AREA.left, sheet.y, reminderTitleOf(letter), { bold: true, size: 14, fit: WIDTH });
    sheet.y -= 18;
  }

  text() {
    const { sheet, letter, labels, f } = this;
    const { reminder, invoice } = letter;
    sheet.paragraph(labels.salutation);
    sheet.y -= 4;
    const facts = {
      number: invoice.number,
      invoiceDate: f.day(invoice.issueDate),
      due: f.day(invoice.dueDate),
      payBy: f.day(reminder.payBy),
      total: this.euro(reminder.totalCents),
      fee: this.euro(reminder.feeCents),
      since: reminder.defaultSince ? f.day(reminder.defaultSince) : "",
      consumer: reminder.consumer,
    };
    const paragraphs = labels.body(reminder.level, facts);
    paragraphs.forEach((text, i) => {
      // Level 3's last paragraph, the court dunning procedure, in bold.
      const bold = reminder.level === 3 && i === paragraphs.length - 1;
      sheet.paragraph(kept(text), AREA.left, WIDTH, { bold });
      sheet.y -= 4;
    });
    sheet.y -= 2;
  }

  amounts() {
    const { sheet, labels, f } = this;
    const { reminder } = this.letter;
    const { grossCents } = this.letter.invoice;
    // What was paid already, when anything was: the gross amount less it is the open amount.
    const paid: [string, string | null, number, boolean][] =
      grossCents > reminder.openCents
        ? [
            [labels.gross, null, grossCents, false],
            [labels.received, null, grossCents - reminder.openCents, true],
          ]
        : [];
    const rows: [string, string | null, number, boolean][] = [...paid, [labels.open, null, reminder.openCents, false]];
    if (reminder.level > 1) {
      const to = f.day(reminder.issuedOn);
      const rate = f.percent(reminder.interestPercent!);
      rows.push([
        labels.interest(f.day(reminder.defaultSince!), to),
        labels.interestBasis(reminder.consumer, rate),
        reminder.interestCents,
        false,
      ]);
      if (reminder.feeCents > 0) rows.push([labels.fee, null, reminder.feeCents, false]);
    }
    const width = AMOUNTS.label - AREA.left;
    const height = rows.reduce((sum, [, note]) => sum + BODY.leading * (note ? 2 : 1) + 3, BODY.leading * 2 + 8);
    sheet.need(height);
    for (const [label, note, cents, negative] of rows) {
      sheet.text(AREA.left, sheet.y, label, { fit: width });
      sheet.text(AREA.right, sheet.y, `${negative ? "−" : ""}${this.euro(cents)}`, { align: "right" });
      sheet.y -= BODY.leading;
      if (note) {
        for (const line of sheet.wrap(kept(note), width, 8)) {
          sheet.text(AREA.left, sheet.y + 1, line, { size: 8, grey: true, fit: width });
          sheet.y -= BODY.leading - 1;
        }
      }
      sheet.y -= 3;
    }
    sheet.rule(sheet.y + BODY.leading - 4, AMOUNTS.rule);
    sheet.text(AREA.left, sheet.y - 2, labels.total, { bold: true });
    sheet.text(AREA.right, sheet.y - 2, this.euro(reminder.totalCents), { bold: true, align: "right" });
    sheet.y -= BODY.leading + 6;
    if (reminder.level > 1) {
      sheet.paragraph(labels.noVat, AREA.left, WIDTH, { grey: true, size: 8 });
    }
    sheet.y -= 6;
  }

  /** Levels 2 and 3: each run of days of one open amount at one rate (docs/api.md part 18's rule). */
  interestAccount() {
    const { sheet, labels, f } = this;
    const { reminder } = this.letter;
    if (reminder.level === 1 || reminder.interestPeriods.length === 0) return;
    const { account } = labels;
    const note = sheet.wrap(kept(account.note), WIDTH, 8);
    sheet.need(BODY.leading * (3 + Math.min(reminder.interestPeriods.length, 4)) + note.length * 10);
    sheet.text(AREA.left, sheet.y, account.heading, { bold: true });
    sheet.y -= BODY.leading + 2;
    const header = () => {
      const style = { bold: true, size: 8.5 } as const;
      sheet.text(AREA.left, sheet.y, account.period, style);
      sheet.text(ACCOUNT.days, sheet.y, account.days, { ...style, align: "right" });
      sheet.text(ACCOUNT.open, sheet.y, account.open, { ...style, align: "right" });
      sheet.text(ACCOUNT.rate, sheet.y, account.rate, { ...style, align: "right" });
      sheet.rule(sheet.y - 4);
      sheet.y -= BODY.leading + 6;
    };
    header();
    sheet.repeat = header;
    for (const period of reminder.interestPeriods) {
      sheet.need(BODY.leading);
      sheet.text(AREA.left, sheet.y, `${f.day(period.from)} – ${f.day(period.to)}`);
      sheet.text(ACCOUNT.days, sheet.y, f.integer(period.days), { align: "right" });
      sheet.text(ACCOUNT.open, sheet.y, f.money(period.openCents), { align: "right" });
      sheet.text(ACCOUNT.rate, sheet.y, f.percent(percentOf(period.basisPoints)), { align: "right" });
      sheet.y -= BODY.leading;
    }
    sheet.repeat = null;
    sheet.rule(sheet.y + BODY.leading - 4);
    sheet.y -= 4;
    for (const line of note) {
      sheet.need(10);
      sheet.text(AREA.left, sheet.y, line, { size: 8, grey: true, fit: WIDTH });
      sheet.y -= 10;
    }
    sheet.y -= 6;
  }

  /** The invoice's payment block for the reminder's total, due by pay_by: the RF reference and GiroCode. */
  payment() {
    const { seller } = this.letter;
    const { reminder, paymentReference } = this.letter;
    const payment: Payment = {
      code: "58",
      remittance: paymentReference,
      iban: seller.iban,
      accountName: seller.name,
      bic: seller.bic,
    };
    const amount = { grossCents: reminder.totalCents, dueDate: reminder.payBy };
    paymentBlock(this.sheet, amount, LABELS[this.letter.language], this.f, payment);
  }

  closing() {
    const { sheet, labels } = this;
    const { seller } = this.letter;
    sheet.paragraph(labels.paid);
    sheet.paragraph(labels.questions(seller.contactPhone, seller.contactEmail));
    sheet.y -= 6;
    // The greeting and the name stay together.
    sheet.need(BODY.leading * 2 + 2);
    sheet.paragraph(labels.closing);
    sheet.y -= 2;
    sheet.paragraph(seller.name);
  }

  footer(sheet: Sheet, page: number, pages: number) {
    const { seller, invoice, reminder, language } = this.letter;
    reminderFooter(
      sheet,
      seller,
      language,
      `${invoice.number} · ${reminder.title} · ${LABELS[language].page(page, pages)}`,
    );
  }
}
