import { NOT_XML as NOT_XML_CHARACTER } from "../domain/text";

// A small XML tree and its one serializer, for the e-invoices: renderers build elements with el() and
// never write markup themselves, so every text and attribute value passes through escapeXml() below.
// The output is deterministic (attributes in the order given, two-space indentation): the same tree
// gives the same bytes, UTF-8 with an XML declaration.

interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  /** Either all text or all elements: the documents have no mixed content. */
  readonly children: readonly (XmlElement | string)[];
}

/** What el() takes as content: null, undefined and false are left out (optional parts), arrays are flattened. */
type Child = XmlElement | string | null | undefined | false | readonly Child[];

// Our names are constants ("cbc:ID", "xmlns:ram"); the check keeps a typo from producing broken XML.
const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/;

/** An element; attributes whose value is null or undefined are left out. */
export function el(name: string, attrs: Record<string, string | null | undefined> | null, ...children: Child[]) {
  if (!NAME.test(name)) throw new Error(`not an XML name: ${name}`);
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (!NAME.test(key)) throw new Error(`not an XML name: ${key}`);
    if (value != null) kept[key] = value;
  }
  const element: XmlElement = { name, attrs: kept, children: flatten(children, []) };
  if (element.children.some((c) => typeof c === "string") && element.children.some((c) => typeof c !== "string"))
    throw new Error(`mixed content in ${name}`);
  return element;
}

function flatten(children: readonly Child[], into: (XmlElement | string)[]) {
  for (const child of children)
    if (Array.isArray(child)) flatten(child, into);
    else if (child != null && child !== false) into.push(child as XmlElement | string);
  return into;
}

/** The document: XML declaration, then the tree, then a final newline. */
export function serialize(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(root, "")}\n`;
}

function write(element: XmlElement, indent: string): string {
  let open = element.name;
  for (const [key, value] of Object.entries(element.attrs)) open += ` ${key}="${escapeXml(value, IN_ATTRIBUTE)}"`;
  const { children } = element;
  if (children.length === 0) return `${indent}<${open}/>`;
  if (typeof children[0] === "string")
    return `${indent}<${open}>${escapeXml(children.join(""), IN_TEXT)}</${element.name}>`;
  const inner = children.map((child) => write(child as XmlElement, `${indent}  `)).join("\n");
  return `${indent}<${open}>\n${inner}\n${indent}</${element.name}>`;
}

// What XML cannot carry (domain/text.ts) is dropped rather than refused: invoices issued before docs/api.md
// part 14 may hold it in a reference or a cost center, stored exactly as the API received them.
const NOT_XML = new RegExp(NOT_XML_CHARACTER.source, "gu");
// In text, "\r" as a reference survives the parser's line-end normalisation; in attributes, tab and
// line ends too survive attribute-value normalisation.
const IN_TEXT = /[&<>\r]/g;
const IN_ATTRIBUTE = /[&<>"\t\n\r]/g;
const REFERENCE: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "\t": "&#x9;",
  "\n": "&#xA;",
  "\r": "&#xD;",
};

/** Text as an XML element's content (for the PDF's XMP packet, which is not built with el()). */
export const xmlText = (value: string): string => escapeXml(value, IN_TEXT);

/** `value` without the characters XML cannot carry: what an XML document can say of it. */
export const xmlCarried = (value: string): string => value.replace(NOT_XML, "");

function escapeXml(value: string, special: RegExp): string {
  return value.replace(NOT_XML, "").replace(special, (c) => REFERENCE[c]!);
}
