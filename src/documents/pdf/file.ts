// A PDF file (ISO 32000-1 section 7.5): numbered objects, the cross-reference table and the trailer,
// written in the order the objects were numbered. Dictionaries arrive as PDF syntax in ASCII (the
// helpers below write the strings); stream data as bytes. Nothing here reads a clock or a random
// source: the same objects give the same bytes.

export type Ref = `${number} 0 R`;

const ref = (number: number): Ref => `${number} 0 R`;

export class PdfFile {
  private readonly bodies: (Uint8Array[] | undefined)[] = [];

  /** A number for an object written later (a page names its parent before the parent is written). */
  reserve(): Ref {
    this.bodies.push(undefined);
    return ref(this.bodies.length);
  }

  /** A dictionary, or any other value. */
  add(value: string, at: Ref = this.reserve()): Ref {
    this.bodies[numberOf(at) - 1] = [bytesOf(value)];
    return at;
  }

  /** A stream; `dict` is the dictionary's content without its /Length. */
  addStream(dict: string, data: Uint8Array, at: Ref = this.reserve()): Ref {
    // PDF/A: an end-of-line after "stream" and before "endstream", neither counted in /Length.
    this.bodies[numberOf(at) - 1] = [
      bytesOf(`<<${dict} /Length ${data.length}>>\nstream\n`),
      data,
      bytesOf("\nendstream"),
    ];
    return at;
  }

  /** The file: header, objects, cross-reference table, trailer (`trailer`: its entries besides /Size). */
  bytes(trailer: string): Uint8Array {
    // The second line's bytes above 127 mark the file as binary (PDF/A requires it).
    const parts: Uint8Array[] = [bytesOf("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")];
    let offset = parts[0]!.length;
    const offsets: number[] = [];
    this.bodies.forEach((body, i) => {
      if (!body) throw new Error(`PDF object ${i + 1} was reserved and never written`);
      const chunk = [bytesOf(`${i + 1} 0 obj\n`), ...body, bytesOf("\nendobj\n")];
      offsets.push(offset);
      for (const part of chunk) offset += part.length;
      parts.push(...chunk);
    });
    const xref = [`xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`];
    for (const at of offsets) xref.push(`${String(at).padStart(10, "0")} 00000 n \n`);
    parts.push(
      bytesOf(`${xref.join("")}trailer\n<</Size ${offsets.length + 1} ${trailer}>>\nstartxref\n${offset}\n%%EOF\n`),
    );
    return concat(parts);
  }
}

const numberOf = (at: Ref) => Number(at.slice(0, at.indexOf(" ")));

/** A "binary" string (one char a byte: PDF syntax, which here is ASCII) as bytes. */
export function bytesOf(binary: string): Uint8Array {
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const hex = (bytes: Iterable<number>) => [...bytes].map((b) => b.toString(16).padStart(2, "0").toUpperCase()).join("");

/** A text string (ISO 32000-1 7.9.2.2) of any Unicode text: UTF-16BE with its byte order mark, in hex. */
export function textString(text: string): string {
  const units: number[] = [0xfe, 0xff];
  for (let i = 0; i < text.length; i++) units.push(text.charCodeAt(i) >> 8, text.charCodeAt(i) & 0xff);
  return `<${hex(units)}>`;
}

/** A byte string in hex (file identifiers). */
export const hexString = (bytes: Uint8Array) => `<${hex(bytes)}>`;

/** A date (ISO 32000-1 7.9.4) of a day, at midnight UTC: the documents name days, not instants. */
export const pdfDate = (isoDate: string) => `(D:${isoDate.replaceAll("-", "")}000000+00'00')`;
