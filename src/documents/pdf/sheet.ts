// The layout engine of the PDF's pages: text in the embedded faces at a position, wrapped lines, rules,
// and new pages when the content reaches the footer. It knows nothing of invoices (invoice-pages.ts).
import { type Fonts, shape, type Weight, widthOf } from "./font";

/** A4 in points. */
export const PAGE = { width: 595.28, height: 841.89 };
/** The text area: 20 mm margins left and right; content from `top` down to `bottom`, the footer below. */
export const AREA = { left: 56.69, right: 538.58, top: 800, bottom: 96 };
/** The body text's size and line distance. */
export const BODY = { size: 9, leading: 11.5 };

/** The resource name of a weight's face: R0-R3 regular, B0-B3 bold (font.ts's order of scripts). */
export const fontName = (weight: Weight, face: number) => `${weight === "bold" ? "B" : "R"}${face}`;

interface Style {
  bold?: boolean;
  size?: number;
  grey?: boolean;
  /** Where `x` is: the text's left edge (default), its right edge, or its middle. */
  align?: "left" | "right" | "center";
  /** The widest the text may be: a longer one (a word that does not fit its column) is set smaller, never cut. */
  fit?: number;
}

export class Sheet {
  readonly pages: string[][] = [];
  y = 0;
  /** Drawn at the top of each new page while set: the line table's header. */
  repeat: (() => void) | null = null;

  constructor(
    private readonly fonts: Fonts,
    /** The heading of every page after the first. */
    private readonly continued: string,
    /** The fonts drawn with (fontName). */
    readonly used = new Set<string>(),
  ) {}

  /** Room for `height` points from y down, or else a new page. */
  need(height: number) {
    if (this.pages.length > 0 && this.y - height >= AREA.bottom) return;
    this.pages.push([]);
    this.y = AREA.top;
    if (this.pages.length > 1) {
      this.text(AREA.left, this.y, this.continued, { bold: true, size: 10 });
      this.y -= 28;
    }
    this.repeat?.();
  }

  text(x: number, y: number, text: string, style: Style = {}) {
    const weight: Weight = style.bold ? "bold" : "regular";
    const runs = shape(this.fonts[weight], text);
    let size = style.size ?? BODY.size;
    let width = widthOf(this.fonts[weight], runs, size);
    if (style.fit !== undefined && width > style.fit) {
      size = (size * style.fit) / width;
      width = style.fit;
    }
    const left = style.align === "right" ? x - width : style.align === "center" ? x - width / 2 : x;
    let ops = `${style.grey ? "0.33 g" : "0 g"} BT 1 0 0 1 ${n(left)} ${n(y)} Tm`;
    for (const run of runs) {
      const font = fontName(weight, run.face);
      this.used.add(font);
      ops += ` /${font} ${n(size)} Tf <${run.glyphs.map(hex4).join("")}> Tj`;
    }
    this.current.push(`${ops} ET`);
  }

  /** Wrapped text from `x` at y down, `width` wide, a new page when needed; y ends below it. */
  paragraph(text: string, x = AREA.left, width = AREA.right - x, style: Style = {}) {
    for (const line of this.wrap(text, width, style.size, style.bold ? "bold" : "regular")) {
      this.need(BODY.leading);
      this.text(x, this.y, line, { ...style, fit: width });
      this.y -= BODY.leading;
    }
  }

  /** PDF operators of a drawing (qr.ts's code), as they are: they keep the graphics state as they found it. */
  graphic(ops: string) {
    this.current.push(ops);
  }

  /** A horizontal hairline at `y`, from `from` to the right margin. */
  rule(y: number, from = AREA.left) {
    this.current.push(`0.6 G 0.5 w ${n(from)} ${n(y)} m ${n(AREA.right)} ${n(y)} l S`);
  }

  /**
   * `text` broken into lines no wider than `width` at `size`, at spaces only: a word or an identifier
   * is never split, and one wider than the column is a line of its own (drawn with `fit`, smaller).
   */
  wrap(text: string, width: number, size = BODY.size, weight: Weight = "regular"): string[] {
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
    }
    if (line || lines.length === 0) lines.push(line);
    return lines;
  }

  /** The pages' content streams, each with what `foot` draws on it (page numbers from 1). */
  finish(foot: (sheet: Sheet, page: number, pages: number) => void): string[] {
    return this.pages.map((ops, i) => {
      const footer = new Sheet(this.fonts, "", this.used);
      footer.pages.push([]);
      foot(footer, i + 1, this.pages.length);
      return `${ops.join("\n")}\n${footer.pages[0]!.join("\n")}`;
    });
  }

  private get current(): string[] {
    if (this.pages.length === 0) this.pages.push([]);
    return this.pages[this.pages.length - 1]!;
  }
}

/** A glyph id as Identity-H writes it: two bytes, in hex (the subsets' ids, below 4096, from a table). */
const HEX4 = Array.from({ length: 4096 }, (_, glyph) => glyph.toString(16).padStart(4, "0"));
const hex4 = (glyph: number) => HEX4[glyph] ?? glyph.toString(16).padStart(4, "0");
/** A coordinate or size: two decimals at most (no float noise in the file). */
const n = (value: number) => String(Math.round(value * 100) / 100);
