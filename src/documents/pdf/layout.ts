// The pages of an invoice as a person reads it, in German (docs/api.md part 13): letterhead, the
// buyer's address and the invoice's particulars, the lines (the table's header repeated on every
// page), totals, the VAT breakdown with its exemption reason, the payment instructions, and on every
// page a footer with the seller's address, contact, bank and registration, and "Seite n von m".
// What it shows is the EInvoice the XML documents are made of, decided in semantic.ts.
import { formatCents } from "../../domain/money";
import type { DocumentLine, EInvoice } from "../model";
import { type Payment, paymentOf, present, type Vat, vatOf } from "../semantic";
import { type Fonts, shape, type Weight, widthOf } from "./font";

/** The resource name of a weight's face: R0-R3 regular, B0-B3 bold (font.ts's order of scripts). */
export const fontName = (weight: Weight, face: number) => `${weight === "bold" ? "B" : "R"}${face}`;

/** A4 in points, 20 mm margins. */
export const PAGE = { width: 595.28, height: 841.89 };
const LEFT = 56.69;
const RIGHT = 538.58;
/** Where a page's content ends: the footer is below. */
const BOTTOM = 96;
const SIZE = 9;
const LEADING = 11.5;

interface Style {
  bold?: boolean;
  size?: number;
  grey?: boolean;
  align?: "left" | "right";
}

/** The pages' content streams (PDF operators, one string a page) and the fonts they use (fontName). */
export function layoutInvoice(doc: EInvoice, fonts: Fonts): { pages: string[]; fonts: Set<string> } {
  const vat = vatOf(doc);
  const payment = paymentOf(doc);
  const sheet = new Sheet(fonts, titleOf(doc));
  letterhead(sheet, doc, vat);
  lineTable(sheet, doc.lines, vat);
  totals(sheet, doc, vat);
  vatBreakdown(sheet, doc, vat);
  paymentInstructions(sheet, doc, payment);
  return { pages: sheet.finish(doc), fonts: sheet.used };
}

const TITLE = { "380": "Rechnung", "381": "Stornorechnung" } as const;
/** "Rechnung INV-…", "Stornorechnung CN-…": the pages' heading and the file's title. */
export const titleOf = (doc: EInvoice) => `${TITLE[doc.typeCode]} ${doc.number}`;

// --- The parts, top to bottom.

function letterhead(sheet: Sheet, doc: EInvoice, vat: Vat) {
  const { seller, buyer } = doc;
  let top = 790;
  for (const line of sheet.wrap(seller.name, RIGHT - LEFT, 15, "bold")) {
    sheet.text(LEFT, top, line, { bold: true, size: 15 });
    top -= 17;
  }
  for (const line of sheet.wrap(`${seller.street} · ${seller.postcode} ${seller.city}`, RIGHT - LEFT)) {
    sheet.text(LEFT, top + 2, line, { grey: true });
    top -= LEADING;
  }

  // The address block (DIN 5008's window): the sender's line, then the buyer, every line wrapped short
  // of the particulars (all of it is the customer's own text, up to 200 characters a field).
  let y = Math.min(728, top - 24);
  const particularsTop = y;
  const width = PARTICULARS.label - LEFT - 12;
  for (const line of sheet.wrap(`${seller.name} · ${seller.street} · ${seller.postcode} ${seller.city}`, width, 6.5)) {
    sheet.text(LEFT, y, line, { size: 6.5, grey: true });
    y -= 8;
  }
  y -= 8;
  const address = [
    buyer.legalName,
    buyer.street,
    `${buyer.postcode} ${buyer.city}`,
    ...(buyer.countryCode === seller.countryCode ? [] : [countryName(buyer.countryCode)]),
  ];
  for (const line of address.flatMap((part) => sheet.wrap(part, width, 10))) {
    sheet.text(LEFT, y, line, { size: 10 });
    y -= 12.5;
  }
  if (vat.showsVatIds && present(buyer.vatId)) {
    sheet.text(LEFT, y - 4, `USt-IdNr. ${buyer.vatId}`, { grey: true });
    y -= 16.5;
  }

  // The particulars, right.
  const creditNote = doc.typeCode === "381";
  const rows: [string, string | null][] = [
    [creditNote ? "Stornorechnung Nr." : "Rechnungsnummer", doc.number],
    [creditNote ? "Datum" : "Rechnungsdatum", day(doc.issueDate)],
    [
      "Zur Rechnung",
      doc.precedingInvoice && `${doc.precedingInvoice.number} vom ${day(doc.precedingInvoice.issueDate)}`,
    ],
    ["Fällig am", doc.dueDate && day(doc.dueDate)],
    servicePeriod(doc, vat),
    // The buyer's own reference (BT-10 falls back on the order reference or the customer number, which
    // have rows of their own).
    ["Ihre Referenz", present(buyer.buyerReference) ? buyer.buyerReference : null],
    ["Ihre Bestellung", present(doc.orderReference) ? doc.orderReference : null],
    ["Kostenstelle", present(doc.accountingReference) ? doc.accountingReference : null],
    ["Unser Auftrag", doc.salesOrderReference],
    ["Kundennummer", buyer.customerId],
  ];
  let right = particularsTop;
  for (const [label, value] of rows) {
    if (value === null) continue;
    sheet.text(PARTICULARS.label, right, label, { grey: true });
    for (const line of sheet.wrap(value, RIGHT - PARTICULARS.value)) {
      sheet.text(PARTICULARS.value, right, line);
      right -= LEADING;
    }
  }

  sheet.y = Math.min(y, right) - 24;
  sheet.text(LEFT, sheet.y, titleOf(doc), { bold: true, size: 14 });
  sheet.y -= 18;
  if (doc.precedingInvoice) {
    const { number, issueDate } = doc.precedingInvoice;
    sheet.paragraph(`Diese Stornorechnung hebt die Rechnung ${number} vom ${day(issueDate)} vollständig auf.`);
  } else sheet.paragraph("Für die folgenden Leistungen berechnen wir Ihnen:");
  sheet.y -= 8;
}

/** The particulars' columns: wide enough for a UUID (the card order's id) on one line. */
const PARTICULARS = { label: 300, value: 383 };

// § 14 (4) no. 6 UStG: a taxable supply's date. A voucher invoice has no period: a single-purpose voucher
// (S, Z) is supplied when it is issued, the day of its invoice (for a credit note, of the invoice it
// cancels); a multi-purpose one (O) is no supply yet.
const supplied = (doc: EInvoice) => doc.precedingInvoice?.issueDate ?? doc.issueDate;

function servicePeriod(doc: EInvoice, vat: Vat): [string, string | null] {
  const period = doc.servicePeriod;
  if (!period) return ["Leistungsdatum", vat.category === "O" ? null : day(supplied(doc))];
  if (period.start === period.end) return ["Leistungsdatum", day(period.start)];
  return ["Leistungszeitraum", `${day(period.start)} – ${day(period.end)}`];
}

// The columns of the line table: right edges of the numbers, the description's left edge and width.
const COLUMN = {
  position: 78,
  description: 88,
  descriptionWidth: 226,
  quantity: 350,
  price: 418,
  vat: 430,
  net: RIGHT,
};

function lineTable(sheet: Sheet, lines: DocumentLine[], vat: Vat) {
  // Every line has the document's one category and rate (vatOf); O has no rate.
  const vatCell = vat.linePercent === null ? vat.category : `${vat.category} ${percent(vat.linePercent)}`;
  const header = () => {
    const y = sheet.y;
    const style = { bold: true, size: 8.5 } as const;
    sheet.text(COLUMN.position, y, "Pos.", { ...style, align: "right" });
    sheet.text(COLUMN.description, y, "Beschreibung", style);
    sheet.text(COLUMN.quantity, y, "Menge", { ...style, align: "right" });
    sheet.text(COLUMN.price, y, "Einzelpreis €", { ...style, align: "right" });
    sheet.text(COLUMN.vat, y, "USt.", style);
    sheet.text(COLUMN.net, y, "Betrag €", { ...style, align: "right" });
    sheet.rule(y - 4);
    sheet.y -= LEADING + 6;
  };
  sheet.need(LEADING * 3);
  header();
  sheet.repeat = header;
  for (const line of lines) {
    const description = sheet.wrap(line.description, COLUMN.descriptionWidth);
    // The last line goes with the totals, so that they never open a page on their own.
    sheet.need(description.length * LEADING + 2 + (line === lines.at(-1) ? TABLE_END + TOTALS_HEIGHT : 0));
    const y = sheet.y;
    sheet.text(COLUMN.position, y, String(line.position), { align: "right" });
    description.forEach((text, i) => sheet.text(COLUMN.description, y - i * LEADING, text));
    sheet.text(COLUMN.quantity, y, integer(line.quantity), { align: "right" });
    sheet.text(COLUMN.price, y, money(line.unitPriceCents), { align: "right" });
    sheet.text(COLUMN.vat, y, vatCell);
    sheet.text(COLUMN.net, y, money(line.netCents), { align: "right" });
    sheet.y -= description.length * LEADING + 2;
  }
  sheet.repeat = null;
  sheet.rule(sheet.y + LEADING - 4);
  sheet.y -= TABLE_END;
}

/** The space below the line table's closing rule, and the totals' height. */
const TABLE_END = 6;
const TOTALS_HEIGHT = LEADING * 3 + 16;

function totals(sheet: Sheet, doc: EInvoice, vat: Vat) {
  sheet.need(TOTALS_HEIGHT);
  const row = (label: string, cents: number, bold = false) => {
    sheet.text(COLUMN.price + 40, sheet.y, label, { bold, align: "right" });
    sheet.text(COLUMN.net, sheet.y, `${money(cents)} €`, { bold, align: "right" });
    sheet.y -= LEADING;
  };
  row("Summe netto", doc.netCents);
  row(
    vat.category === "O" ? "Umsatzsteuer (nicht steuerbar)" : `Umsatzsteuer ${percent(vat.breakdownPercent)}`,
    doc.vatCents,
  );
  sheet.rule(sheet.y + LEADING - 3, 330);
  row("Gesamtbetrag", doc.grossCents, true);
  sheet.y -= 10;
}

const CATEGORY = { S: "S – Normalsatz", Z: "Z – Nullsatz", O: "O – nicht steuerbar" } as const;
const REASON = {
  S: null,
  Z: "Die Leistung unterliegt dem Umsatzsteuersatz von 0 % (Nullsatz, Kategorie Z).",
  O:
    "nicht steuerbar. Der Verkauf von Mehrzweck-Gutscheinen ist kein " +
    "steuerbarer Umsatz (§\u00a03\u00a0Abs.\u00a015\u00a0UStG); die Umsatzsteuer entsteht erst mit der Einlösung.",
} as const;

function vatBreakdown(sheet: Sheet, doc: EInvoice, vat: Vat) {
  const reason = REASON[vat.category];
  // The reason's code, where EN 16931 has one (O: VATEX-EU-O), as the XML states it.
  const label = vat.exemptionCode ? `Befreiungsgrund (${vat.exemptionCode})` : "Befreiungsgrund";
  const reasonLines = reason ? sheet.wrap(`${label}: ${reason}`, RIGHT - LEFT) : [];
  sheet.need(LEADING * (4 + reasonLines.length));
  sheet.text(LEFT, sheet.y, "Umsatzsteueraufstellung", { bold: true });
  sheet.y -= LEADING + 2;
  const style = { bold: true, size: 8.5 } as const;
  sheet.text(LEFT, sheet.y, "Kategorie", style);
  sheet.text(300, sheet.y, "Steuersatz", { ...style, align: "right" });
  sheet.text(COLUMN.price, sheet.y, "Nettobetrag €", { ...style, align: "right" });
  sheet.text(COLUMN.net, sheet.y, "Steuerbetrag €", { ...style, align: "right" });
  sheet.rule(sheet.y - 4);
  sheet.y -= LEADING + 6;
  sheet.text(LEFT, sheet.y, CATEGORY[vat.category]);
  sheet.text(300, sheet.y, vat.category === "O" ? "–" : percent(vat.breakdownPercent), { align: "right" });
  sheet.text(COLUMN.price, sheet.y, money(doc.netCents), { align: "right" });
  sheet.text(COLUMN.net, sheet.y, money(doc.vatCents), { align: "right" });
  sheet.y -= LEADING + 2;
  for (const line of reasonLines) {
    sheet.text(LEFT, sheet.y, line, { grey: true });
    sheet.y -= LEADING;
  }
  sheet.y -= 10;
}

function paymentInstructions(sheet: Sheet, doc: EInvoice, payment: Payment) {
  const gross = `${money(doc.grossCents)} €`;
  const due = doc.dueDate ? day(doc.dueDate) : null;
  const [intro, rows]: [string, [string, string][]] =
    payment.code === "58"
      ? [
          `Bitte überweisen Sie ${gross}${due ? ` bis zum ${due}` : ""} ohne Abzug auf dieses Konto:`,
          [
            ["Kontoinhaber", payment.accountName],
            ["IBAN", iban(payment.iban)],
            ...(present(payment.bic) ? [["BIC", payment.bic] as [string, string]] : []),
            ["Verwendungszweck", payment.remittance],
          ],
        ]
      : payment.code === "59"
        ? [
            `Den Betrag von ${gross} ziehen wir${due ? ` zum ${due}` : ""} per SEPA-Lastschrift von Ihrem Konto ein.`,
            [
              ["IBAN", iban(payment.debitedIban)],
              ["Mandatsreferenz", payment.mandate],
              ["Gläubiger-ID", payment.creditorId],
              ["Verwendungszweck", payment.remittance],
            ],
          ]
        : [
            `Die Stornorechnung wird mit der Rechnung ${payment.remittance} verrechnet: Es ist keine Zahlung fällig.`,
            [],
          ];
  const introLines = sheet.wrap(intro, RIGHT - LEFT);
  sheet.need(LEADING * (2 + introLines.length + rows.length));
  sheet.text(LEFT, sheet.y, "Zahlung", { bold: true });
  sheet.y -= LEADING + 2;
  for (const line of introLines) {
    sheet.text(LEFT, sheet.y, line);
    sheet.y -= LEADING;
  }
  for (const [label, value] of rows) {
    sheet.text(LEFT, sheet.y, label, { grey: true });
    sheet.text(LEFT + 90, sheet.y, value);
    sheet.y -= LEADING;
  }
}

/** Every page's foot: the seller's address, contact, bank and registration; the page number. */
function footer(fonts: Fonts, used: Set<string>, doc: EInvoice, page: number, pages: number): string {
  const sheet = new Sheet(fonts, "", used);
  sheet.pages.push([]);
  const { seller } = doc;
  const columns = [
    [seller.name, seller.street, `${seller.postcode} ${seller.city}`],
    [seller.contactName, `Tel. ${seller.contactPhone}`, seller.contactEmail],
    // The tax ids first (§ 14 UStG wants one): a long register entry is what the six lines cut.
    [
      `IBAN ${iban(seller.iban)}`,
      ...(present(seller.bic) ? [`BIC ${seller.bic}`] : []),
      `USt-IdNr. ${seller.vatId}`,
      ...(present(seller.taxNumber) ? [`Steuernummer ${seller.taxNumber}`] : []),
      seller.registrationId,
    ],
  ];
  sheet.text(RIGHT, 84, `${doc.number} · Seite ${page} von ${pages}`, { size: 7.5, grey: true, align: "right" });
  sheet.rule(78);
  const x = [LEFT, 225, 385];
  columns.forEach((lines, c) => {
    let y = 68;
    // At most six lines a column: the page ends below them.
    for (const part of lines.flatMap((line) => sheet.wrap(line, 150, 7)).slice(0, 6)) {
      sheet.text(x[c]!, y, part, { size: 7, grey: true });
      y -= 8.5;
    }
  });
  return sheet.pages[0]!.join("\n");
}

// --- Drawing.

class Sheet {
  readonly pages: string[][] = [];
  y = 0;
  /** Drawn at the top of each new page while set: the line table's header. */
  repeat: (() => void) | null = null;

  constructor(
    private readonly fonts: Fonts,
    private readonly heading: string,
    /** The fonts drawn with (fontName). */
    readonly used = new Set<string>(),
  ) {}

  /** Room for `height` points from y down, or else a new page. */
  need(height: number) {
    if (this.pages.length > 0 && this.y - height >= BOTTOM) return;
    this.pages.push([]);
    this.y = 800;
    if (this.pages.length > 1) {
      this.text(LEFT, this.y, `${this.heading} (Fortsetzung)`, { bold: true, size: 10 });
      this.y -= 28;
    }
    this.repeat?.();
  }

  text(x: number, y: number, text: string, style: Style = {}) {
    const weight: Weight = style.bold ? "bold" : "regular";
    const size = style.size ?? SIZE;
    const runs = shape(this.fonts[weight], text);
    const left = style.align === "right" ? x - widthOf(this.fonts[weight], runs, size) : x;
    let ops = `${style.grey ? "0.33 g" : "0 g"} BT 1 0 0 1 ${n(left)} ${n(y)} Tm`;
    for (const run of runs) {
      const font = fontName(weight, run.face);
      this.used.add(font);
      ops += ` /${font} ${size} Tf <${run.glyphs.map(hex4).join("")}> Tj`;
    }
    this.current.push(`${ops} ET`);
  }

  /** A paragraph of wrapped text at the left margin, from y down. */
  paragraph(text: string) {
    for (const line of this.wrap(text, RIGHT - LEFT)) {
      this.need(LEADING);
      this.text(LEFT, this.y, line);
      this.y -= LEADING;
    }
  }

  /** A horizontal hairline at `y`, from `from` to the right margin. */
  rule(y: number, from = LEFT) {
    this.current.push(`0.6 G 0.5 w ${n(from)} ${n(y)} m ${n(RIGHT)} ${n(y)} l S`);
  }

  /** `text` broken into lines no wider than `width` at `size`: at spaces, or inside a word too long. */
  wrap(text: string, width: number, size = SIZE, weight: Weight = "regular"): string[] {
    const family = this.fonts[weight];
    const measure = (part: string) => widthOf(family, shape(family, part), size);
    const space = measure(" ");
    const lines: string[] = [];
    let line = "";
    let used = 0;
    // Broken at spaces, not at no-break spaces (which \s would include).
    for (const word of text.split(/[ \t\n\r]+/).filter(Boolean)) {
      const needed = measure(word);
      if (line && used + space + needed <= width) {
        line += ` ${word}`;
        used += space + needed;
        continue;
      }
      if (line) lines.push(line);
      [line, used] = [word, needed];
      if (needed <= width) continue;
      // A word wider than the column: broken where it reaches the edge.
      line = "";
      used = 0;
      for (const char of word) {
        const w = measure(char);
        if (line && used + w > width) {
          lines.push(line);
          [line, used] = ["", 0];
        }
        line += char;
        used += w;
      }
    }
    if (line || lines.length === 0) lines.push(line);
    return lines;
  }

  /** The pages' content streams, each with its footer. */
  finish(doc: EInvoice): string[] {
    return this.pages.map(
      (ops, i) => `${ops.join("\n")}\n${footer(this.fonts, this.used, doc, i + 1, this.pages.length)}`,
    );
  }

  private get current(): string[] {
    if (this.pages.length === 0) this.pages.push([]);
    return this.pages[this.pages.length - 1]!;
  }
}

// --- German forms of the values.

/** "1234567" → "1.234.567". */
const grouped = (digits: string) => digits.replace(/\B(?=(\d{3})+$)/g, ".");
/** 1234567 cents → "12.345,67". */
const money = (cents: number) => {
  const [units, hundredths] = formatCents(cents).split(".");
  return `${grouped(units!)},${hundredths}`;
};
const integer = (value: number) => grouped(String(value));
/** "2026-03-02" → "02.03.2026". */
const day = (isoDate: string) => isoDate.split("-").reverse().join(".");
/** "7.5" → "7,5 %". */
const percent = (rate: string) => `${rate.replace(".", ",")} %`;
/** An IBAN in groups of four, as printed. */
const iban = (value: string) => value.replace(/(.{4})(?=.)/g, "$1 ");
/** A glyph id as Identity-H writes it: two bytes, in hex (the subsets' ids, below 4096, from a table). */
const HEX4 = Array.from({ length: 4096 }, (_, glyph) => glyph.toString(16).padStart(4, "0"));
const hex4 = (glyph: number) => HEX4[glyph] ?? glyph.toString(16).padStart(4, "0");
/** A coordinate: two decimals at most (no float noise in the file). */
const n = (value: number) => String(Math.round(value * 100) / 100);

const REGIONS = new Intl.DisplayNames(["de"], { type: "region" });
const countryName = (code: string) => REGIONS.of(code) ?? code;
