// The pages of an invoice as a person reads it, in its language (docs/api.md parts 13 and 14):
// letterhead, the buyer's address and the invoice's particulars, the lines (the table's header repeated
// on every page), totals, the VAT breakdown with its exemption reason, the payment instructions, and on
// every page a footer with the seller's address, contact, bank, tax ids, managing directors and register,
// and the page number. A credit note's amounts are negative. What it shows is the EInvoice the XML
// documents are made of, decided in semantic.ts; sheet.ts draws it.
import type { DocumentLine, EInvoice } from "../../domain/einvoice";
import { managingDirectorsOf, type Payment, paymentOf, present, type Vat, vatOf } from "../semantic";
import type { Fonts } from "./font";
import { inGroupsOfFour as groupsOfFour } from "../../domain/payment-reference";
import { type Formats, formatsOf } from "./format";
import { LABELS } from "./labels";
import { paymentBlock } from "./payment-block";
import { AREA, BODY, Sheet } from "./sheet";

const WIDTH = AREA.right - AREA.left;

/** The letterhead and address block (DIN 5008's window) on the left, the particulars on the right. */
const HEAD = { top: 790, addressTop: 728, particularsLabel: 300, particularsValue: 383 };
/** The line table: the right edges of the numbers, the description's left edge and width. */
const COLUMN = {
  position: 78,
  description: 88,
  descriptionWidth: 226,
  quantity: 350,
  price: 418,
  vat: 430,
  net: AREA.right,
};
/** The totals' labels end here (right-aligned); the VAT breakdown's rate column likewise. */
const TOTALS = { label: COLUMN.price + 40, rule: 330, rate: 300 };
/** The space below the line table's closing rule, and the totals' height. */
const TABLE_END = 6;
const TOTALS_HEIGHT = BODY.leading * 3 + 16;
/** The footer: page number, rule, and three columns of at most six lines each. */
const FOOTER = {
  pageNumber: 84,
  rule: 78,
  top: 68,
  leading: 8.5,
  size: 7,
  columns: [AREA.left, 225, 385],
  width: 150,
};

/** The pages' content streams (PDF operators, one string a page) and the fonts they use (fontName). */
export function layoutInvoice(doc: EInvoice, fonts: Fonts): { pages: string[]; fonts: Set<string> } {
  const page = new InvoicePage(doc, fonts);
  page.letterhead();
  page.lineTable();
  page.totals();
  page.vatBreakdown();
  page.paymentInstructions();
  return { pages: page.sheet.finish((sheet, n, of) => page.footer(sheet, n, of)), fonts: page.sheet.used };
}

/** "Rechnung INV-…", "Stornorechnung CN-…": the pages' heading and the file's title. */
export const titleOf = (doc: EInvoice) => `${LABELS[doc.language].title[doc.typeCode]} ${doc.number}`;

class InvoicePage {
  readonly sheet: Sheet;
  private readonly labels: (typeof LABELS)[keyof typeof LABELS];
  private readonly f: Formats;
  private readonly vat: Vat;
  private readonly payment: Payment;
  /** A credit note reverses its invoice: its amounts are printed negative (the XML keeps them positive). */
  private readonly negative: boolean;

  constructor(
    private readonly doc: EInvoice,
    fonts: Fonts,
  ) {
    this.labels = LABELS[doc.language];
    this.f = formatsOf(doc.language);
    this.vat = vatOf(doc);
    this.payment = paymentOf(doc);
    this.negative = doc.typeCode === "381";
    this.sheet = new Sheet(fonts, `${titleOf(doc)} ${this.labels.continued}`);
  }

  private money = (cents: number) => this.f.money(cents, this.negative);

  letterhead() {
    const { sheet, doc, labels, f } = this;
    const { seller, buyer } = doc;
    let top = HEAD.top;
    for (const line of sheet.wrap(seller.name, WIDTH, 15, "bold")) {
      sheet.text(AREA.left, top, line, { bold: true, size: 15, fit: WIDTH });
      top -= 17;
    }
    for (const line of sheet.wrap(`${seller.street} · ${seller.postcode} ${seller.city}`, WIDTH)) {
      sheet.text(AREA.left, top + 2, line, { grey: true, fit: WIDTH });
      top -= BODY.leading;
    }

    // The address block: the sender's line, then the buyer, every line wrapped short of the particulars
    // (all of it is the customer's own text, up to 200 characters a field).
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
    if (this.vat.showsVatIds && present(buyer.vatId)) {
      sheet.text(AREA.left, y - 4, `${labels.vatId} ${buyer.vatId}`, { grey: true });
      y -= 16.5;
    }

    let right = particularsTop;
    const valueWidth = AREA.right - HEAD.particularsValue;
    for (const [label, value] of this.particulars()) {
      if (value === null) continue;
      sheet.text(HEAD.particularsLabel, right, label, { grey: true });
      for (const line of sheet.wrap(value, valueWidth)) {
        sheet.text(HEAD.particularsValue, right, line, { fit: valueWidth });
        right -= BODY.leading;
      }
    }

    sheet.y = Math.min(y, right) - 24;
    sheet.text(AREA.left, sheet.y, titleOf(doc), { bold: true, size: 14, fit: WIDTH });
    sheet.y -= 18;
    const preceding = doc.precedingInvoice;
    sheet.paragraph(preceding ? labels.reversal(preceding.number, f.day(preceding.issueDate)) : labels.intro);
    sheet.y -= 8;
  }

  /** The particulars' rows (label, value; null: not shown). */
  private particulars(): [string, string | null][] {
    const { doc, labels, f } = this;
    const { buyer } = doc;
    const kind = doc.typeCode;
    return [
      [labels.number[kind], doc.number],
      [labels.date[kind], f.day(doc.issueDate)],
      [
        labels.cancels,
        doc.precedingInvoice && `${doc.precedingInvoice.number} · ${f.day(doc.precedingInvoice.issueDate)}`,
      ],
      [labels.due, doc.dueDate && f.day(doc.dueDate)],
      this.supply(),
      [labels.leitwegId, present(buyer.leitwegId) ? buyer.leitwegId : null],
      // The buyer's own reference, also beside a Leitweg-ID (BT-10 then), which the XML has no other place for.
      [labels.buyerReference, present(buyer.buyerReference) ? buyer.buyerReference : null],
      [labels.order, present(doc.orderReference) ? doc.orderReference : null],
      [labels.costCenter, present(doc.accountingReference) ? doc.accountingReference : null],
      [labels.salesOrder, doc.salesOrderReference],
      [labels.customer, buyer.customerId],
      [labels.deliverTo[0], this.vat.category === "K" || this.vat.category === "G" ? labels.deliverTo[1] : null],
    ];
  }

  // § 14 (4) no. 6 UStG: a taxable supply's date. A voucher invoice has no period: a single-purpose
  // voucher (S) is supplied when it is issued, the day of its invoice (for a credit note, of the invoice
  // it cancels); a multi-purpose one (O) is no supply yet.
  private supply(): [string, string | null] {
    const { doc, labels, f } = this;
    const period = doc.servicePeriod;
    if (!period) {
      const day = doc.precedingInvoice?.issueDate ?? doc.issueDate;
      return [labels.supplyDate, this.vat.category === "O" ? null : f.day(day)];
    }
    if (period.start === period.end) return [labels.supplyDate, f.day(period.start)];
    return [labels.supplyPeriod, `${f.day(period.start)} – ${f.day(period.end)}`];
  }

  lineTable() {
    const { sheet, doc, labels, f, vat } = this;
    const lines: DocumentLine[] = doc.lines;
    // Every line has the document's one category and rate (vatOf); O has no rate.
    const vatCell = vat.linePercent === null ? vat.category : `${vat.category} ${f.percent(vat.linePercent)}`;
    const header = () => {
      const y = sheet.y;
      const style = { bold: true, size: 8.5 } as const;
      const { columns } = labels;
      sheet.text(COLUMN.position, y, columns.position, { ...style, align: "right" });
      sheet.text(COLUMN.description, y, columns.description, style);
      sheet.text(COLUMN.quantity, y, columns.quantity, { ...style, align: "right" });
      sheet.text(COLUMN.price, y, columns.price, { ...style, align: "right" });
      sheet.text(COLUMN.vat, y, columns.vat, style);
      sheet.text(COLUMN.net, y, columns.net, { ...style, align: "right" });
      sheet.rule(y - 4);
      sheet.y -= BODY.leading + 6;
    };
    sheet.need(BODY.leading * 3);
    header();
    sheet.repeat = header;
    for (const line of lines) {
      const description = sheet.wrap(line.description, COLUMN.descriptionWidth);
      // The last line goes with the totals, so that they never open a page on their own.
      const last = line === lines.at(-1) ? TABLE_END + TOTALS_HEIGHT : 0;
      sheet.need(description.length * BODY.leading + 2 + last);
      const y = sheet.y;
      sheet.text(COLUMN.position, y, String(line.position), { align: "right" });
      description.forEach((text, i) =>
        sheet.text(COLUMN.description, y - i * BODY.leading, text, { fit: COLUMN.descriptionWidth }),
      );
      sheet.text(COLUMN.quantity, y, f.integer(line.quantity), { align: "right" });
      sheet.text(COLUMN.price, y, this.money(line.unitPriceCents), { align: "right" });
      sheet.text(COLUMN.vat, y, vatCell);
      sheet.text(COLUMN.net, y, this.money(line.netCents), { align: "right" });
      sheet.y -= description.length * BODY.leading + 2;
    }
    sheet.repeat = null;
    sheet.rule(sheet.y + BODY.leading - 4);
    sheet.y -= TABLE_END;
  }

  totals() {
    const { sheet, doc, labels, vat, f } = this;
    sheet.need(TOTALS_HEIGHT);
    const row = (label: string, cents: number, bold = false) => {
      sheet.text(TOTALS.label, sheet.y, label, { bold, align: "right" });
      sheet.text(COLUMN.net, sheet.y, `${this.money(cents)} €`, { bold, align: "right" });
      sheet.y -= BODY.leading;
    };
    row(labels.net, doc.netCents);
    row(labels.vat(vat.category, f.percent(vat.breakdownPercent)), doc.vatCents);
    sheet.rule(sheet.y + BODY.leading - 3, TOTALS.rule);
    row(labels.gross, doc.grossCents, true);
    sheet.y -= 10;
  }

  vatBreakdown() {
    const { sheet, doc, labels, vat, f } = this;
    const { breakdown } = labels;
    const reason = vat.exemption && `${labels.exemption} (${vat.exemption.code}): ${vat.exemption.text}`;
    const reasonLines = reason ? sheet.wrap(reason, WIDTH) : [];
    sheet.need(BODY.leading * (4 + reasonLines.length));
    sheet.text(AREA.left, sheet.y, breakdown.heading, { bold: true });
    sheet.y -= BODY.leading + 2;
    const style = { bold: true, size: 8.5 } as const;
    sheet.text(AREA.left, sheet.y, breakdown.category, style);
    sheet.text(TOTALS.rate, sheet.y, breakdown.rate, { ...style, align: "right" });
    sheet.text(COLUMN.price, sheet.y, breakdown.net, { ...style, align: "right" });
    sheet.text(COLUMN.net, sheet.y, breakdown.vat, { ...style, align: "right" });
    sheet.rule(sheet.y - 4);
    sheet.y -= BODY.leading + 6;
    sheet.text(AREA.left, sheet.y, labels.categories[vat.category], { fit: TOTALS.rate - AREA.left - 50 });
    const rate = vat.category === "O" ? "–" : f.percent(vat.breakdownPercent);
    sheet.text(TOTALS.rate, sheet.y, rate, { align: "right" });
    sheet.text(COLUMN.price, sheet.y, this.money(doc.netCents), { align: "right" });
    sheet.text(COLUMN.net, sheet.y, this.money(doc.vatCents), { align: "right" });
    sheet.y -= BODY.leading + 2;
    for (const line of reasonLines) {
      sheet.text(AREA.left, sheet.y, line, { grey: true, fit: WIDTH });
      sheet.y -= BODY.leading;
    }
    sheet.y -= 10;
  }

  paymentInstructions() {
    paymentBlock(this.sheet, this.doc, this.labels, this.f, this.payment);
  }

  /**
   * Every page's foot: the seller's address and managing directors (§ 35a GmbHG), contact, bank, tax
   * ids and register entry; the page number. At most six lines a column: the tax ids come before the
   * register entry, which is what a long one loses.
   */
  footer(sheet: Sheet, page: number, pages: number) {
    const { doc, labels } = this;
    const { seller } = doc;
    const directors = managingDirectorsOf(doc);
    const columns = [
      [seller.name, seller.street, `${seller.postcode} ${seller.city}`, ...(directors ? [directors] : [])],
      [seller.contactName, `${labels.phone} ${seller.contactPhone}`, seller.contactEmail],
      [
        `IBAN ${groupsOfFour(seller.iban)}`,
        ...(present(seller.bic) ? [`BIC ${seller.bic}`] : []),
        `${labels.vatId} ${seller.vatId}`,
        ...(present(seller.taxNumber) ? [`${labels.taxNumber} ${seller.taxNumber}`] : []),
        seller.registrationId,
      ],
    ];
    const style = { size: 7.5, grey: true, align: "right" } as const;
    sheet.text(AREA.right, FOOTER.pageNumber, `${doc.number} · ${labels.page(page, pages)}`, style);
    sheet.rule(FOOTER.rule);
    columns.forEach((lines, c) => {
      let y = FOOTER.top;
      for (const part of lines.flatMap((line) => sheet.wrap(line, FOOTER.width, FOOTER.size)).slice(0, 6)) {
        sheet.text(FOOTER.columns[c]!, y, part, { size: FOOTER.size, grey: true, fit: FOOTER.width });
        y -= FOOTER.leading;
      }
    });
  }
}
