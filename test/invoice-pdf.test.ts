// format=pdf (docs/api.md part 13): ZUGFeRD 2 / Factur-X, rendered by the documents Worker and stored
// in R2 like the XML documents. What a client sees: headers, the same bytes for ever, 304, tenancy,
// scopes, the credit note, and the embedded factur-x.xml, which is byte for byte the `cii` document
// except its BT-24 (docs/api.md part 14: the Factur-X profile EN 16931, not XRechnung).
// The official checks of the PDF itself (PDF/A-3, XMP, fonts, the embedded XML's rules) and of its
// visible text are test/einvoice's, with poppler.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, createInvoice, expectError, orderIn, send, token } from "./support/api";
import { FaultyD1 } from "./support/faulty-d1";
import { embeddedFile } from "./support/pdf";

const PDF = "?format=pdf";

const voucherInvoice = async (auth: string) => createInvoice(auth, (await orderIn(auth, "submitted")).id, "PO-4711");

async function download(auth: string, path: string, headers: Record<string, string> = {}) {
  const response = await call(path, { token: auth, headers });
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

// BT-24, the specification identifier: XRechnung's in `format=cii`, EN 16931's in the PDF's factur-x.xml.
const XRECHNUNG_ID = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
const EN16931_ID = "urn:cen.eu:en16931:2017";
const BT_24 = /(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)([^<]*)(<\/ram:ID>)/g;

/**
 * The factur-x.xml a PDF must embed (docs/api.md part 14): the `format=cii` bytes with BT-24's text, and
 * nothing else, read `urn:cen.eu:en16931:2017` instead of the XRechnung id. The BOM, if any, is kept.
 */
function facturXOf(cii: Uint8Array): Uint8Array {
  const xml = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(cii);
  const found = [...xml.matchAll(BT_24)];
  expect(found.map((match) => match[2])).toStrictEqual([XRECHNUNG_ID]);
  const replaced = xml.replace(BT_24, (_, open: string, __: string, close: string) => open + EN16931_ID + close);
  expect(replaced).not.toBe(xml);
  return new TextEncoder().encode(replaced);
}

function expectPdf(response: Response, bytes: Uint8Array, number: string) {
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/pdf");
  expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="${number}.pdf"`);
  expect(response.headers.get("Cache-Control")).toBe("private");
  expect(response.headers.get("ETag")).toMatch(/^"[^"]+"$/);
  expect(new TextDecoder("latin1").decode(bytes.subarray(0, 9))).toBe("%PDF-1.7\n");
  expect(new TextDecoder("latin1").decode(bytes.subarray(-6))).toBe("%%EOF\n");
}

describe("GET /invoices/{id}/document?format=pdf", () => {
  it("200: a PDF attachment named after the number, strong ETag, private; embeds the cii document", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const { response, bytes } = await download(auth, `/invoices/${invoice.id}/document${PDF}`);
    expectPdf(response, bytes, invoice.number);
    const cii = await download(auth, `/invoices/${invoice.id}/document?format=cii`);
    const embedded = await embeddedFile(bytes);
    expect(embedded).toEqual(facturXOf(cii.bytes));
    expect([...text(embedded).matchAll(BT_24)].map((match) => match[2])).toStrictEqual([EN16931_ID]);
    expect(text(embedded)).not.toContain(XRECHNUNG_ID);
    const stored = await env.DOCUMENTS.get(`invoices/${invoice.id}/invoice.pdf`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);
  });

  it("is the same bytes and ETag on every request, from R2 without a database call; 304 for its ETag", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const path = `/invoices/${invoice.id}/document${PDF}`;
    const first = await download(auth, path);
    const etag = first.response.headers.get("ETag")!;
    const db = new FaultyD1(env.DB).failCall(1);
    const request = new Request(BASE + path, { headers: { Authorization: `Bearer ${auth}` } });
    const again = await send(request, { DB: db.binding });
    const bytes = new Uint8Array(await again.arrayBuffer());
    expectPdf(again, bytes, invoice.number);
    expect(bytes).toEqual(first.bytes);
    expect(again.headers.get("ETag")).toBe(etag);
    expect(db.count).toBe(0);

    const cached = await download(auth, path, { "If-None-Match": etag });
    expect(cached.response.status).toBe(304);
    expect(cached.bytes.length).toBe(0);
    expect(cached.response.headers.get("ETag")).toBe(etag);
    // The right ETag from another customer is no key to it: 404, not 304 (which would say it exists).
    await expectError(await call(path, { token: await token(), headers: { "If-None-Match": etag } }), 404, {
      code: "not_found",
    });
  });

  it("two first requests at once answer identical bytes and ETags, and store them", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const path = `/invoices/${invoice.id}/document${PDF}`;
    const [a, b] = await Promise.all([download(auth, path), download(auth, path)]);
    expect(a.bytes).toEqual(b.bytes);
    expect(a.response.headers.get("ETag")).toBe(b.response.headers.get("ETag"));
    const stored = await env.DOCUMENTS.get(`invoices/${invoice.id}/invoice.pdf`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(a.bytes);
  });

  it("a rendering from R2 deleted is the same bytes: no clock, no random in the PDF", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const path = `/invoices/${invoice.id}/document${PDF}`;
    const first = await download(auth, path);
    await env.DOCUMENTS.delete(`invoices/${invoice.id}/invoice.pdf`);
    const again = await download(auth, path);
    expect(again.bytes).toEqual(first.bytes);
  });

  it("another customer's invoice is a 404, stored or not; needs invoices:read; errors stay JSON", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const path = `/invoices/${invoice.id}/document${PDF}`;
    const accept = { Accept: "application/pdf" };
    await expectError(await call(path, { token: await token(), headers: accept }), 404, { code: "not_found" });
    expect((await download(auth, path)).response.status).toBe(200);
    await expectError(await call(path, { token: await token(), headers: accept }), 404, { code: "not_found" });
    await expectError(await call(path, { token: await token({ scope: "invoices:write" }) }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
    await expectError(await call(path, {}), 401, { code: "unauthorized", source: { header: "Authorization" } });
  });
});

describe("GET /invoices/{id}/credit_note?format=pdf", () => {
  it("a cancelled invoice's credit note: its CN number, embedding the credit note's cii document", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    await expectError(await call(`/invoices/${invoice.id}/credit_note${PDF}`, { token: auth }), 409, {
      code: "invalid_state",
    });
    const cancel = await call(`/invoices/${invoice.id}/cancel`, { token: auth, method: "POST" });
    const cancelled = ((await cancel.json()) as any).data;
    const { response, bytes } = await download(auth, `/invoices/${invoice.id}/credit_note${PDF}`);
    expectPdf(response, bytes, cancelled.cancellation_number);
    const embeddedBytes = await embeddedFile(bytes);
    const cii = await download(auth, `/invoices/${invoice.id}/credit_note?format=cii`);
    expect(embeddedBytes).toEqual(facturXOf(cii.bytes));
    const embedded = text(embeddedBytes);
    expect([...embedded.matchAll(BT_24)].map((match) => match[2])).toStrictEqual([EN16931_ID]);
    expect(embedded).not.toContain(XRECHNUNG_ID);
    expect(embedded).toContain("<ram:TypeCode>381</ram:TypeCode>");
    expect(embedded).toContain(`<ram:IssuerAssignedID>${invoice.number}</ram:IssuerAssignedID>`);
    // The invoice's own PDF is another document, and stays what it is.
    const own = await download(auth, `/invoices/${invoice.id}/document${PDF}`);
    expectPdf(own.response, own.bytes, invoice.number);
    const ownEmbedded = await embeddedFile(own.bytes);
    expect(text(ownEmbedded)).toContain("<ram:TypeCode>380</ram:TypeCode>");
    expect(ownEmbedded).toEqual(facturXOf((await download(auth, `/invoices/${invoice.id}/document?format=cii`)).bytes));
  });
});

describe("the documents Worker's runtime", () => {
  // A foreign buyer's address ends in its country's German name (layout.ts countryName), which the PDF
  // takes from the runtime's ICU data: workerd (here the test pool's) must have it, or the line would
  // print a bare code. The text itself is read with poppler in test/einvoice/pdf.test.mjs.
  it("knows countries' German names", () => {
    const regions = new Intl.DisplayNames(["de"], { type: "region" });
    expect(["GR", "AT", "PL", "BG"].map((code) => regions.of(code))).toEqual([
      "Griechenland",
      "Österreich",
      "Polen",
      "Bulgarien",
    ]);
  });
});
