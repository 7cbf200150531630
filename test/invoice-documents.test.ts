import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  BASE,
  businessDay,
  call,
  customerOfToken,
  expectError,
  newBillingProfile,
  orderIn,
  send,
  storeBillingProfile,
  token,
} from "./support/api";
import { FaultyD1 } from "./support/faulty-d1";
import { embeddedFile } from "./support/pdf";

const documentOf = (id: string, query = "") => `/invoices/${id}/document${query}`;
const creditNoteOf = (id: string, query = "") => `/invoices/${id}/credit_note${query}`;
/** Where a document is stored in R2: `invoices/<id>/<kind>.<format>`. */
const keyOf = (id: string, kind: "invoice" | "credit_note", format: string) => `invoices/${id}/${kind}.${format}`;
const FORMATS = ["ubl", "cii", "pdf"] as const;
const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

/**
 * Makes an issued invoice look as a release before docs/api.md part 14 kept it: the seller without
 * `managingDirectors`, the buyer without `leitwegId`, `directDebitBic`, `directDebitMandateSignedOn`
 * and `documentLanguage` (the other keys in the order they had), its e-mail `email` (undefined: no
 * key at all), and its voucher lines in English, as part 13 wrote them.
 */
async function keptBeforePart14(invoiceId: string, email: string | null | undefined) {
  const row = await env.DB.prepare("SELECT seller, buyer FROM invoices WHERE id = ?")
    .bind(invoiceId)
    .first<{ seller: string; buyer: string }>();
  const { managingDirectors, ...seller } = JSON.parse(row!.seller);
  const { leitwegId, directDebitBic, directDebitMandateSignedOn, documentLanguage, ...buyer } = JSON.parse(row!.buyer);
  expect(Object.keys(buyer)).toStrictEqual([
    "customerId",
    "legalName",
    "street",
    "postcode",
    "city",
    "countryCode",
    "vatId",
    "buyerReference",
    "email",
    "directDebitIban",
    "directDebitMandateReference",
  ]);
  await env.DB.batch([
    env.DB.prepare("UPDATE invoices SET seller = ?, buyer = ? WHERE id = ?").bind(
      JSON.stringify(seller),
      JSON.stringify({ ...buyer, email }),
      invoiceId,
    ),
    env.DB.prepare(
      "UPDATE invoice_lines SET description = 'Voucher card ' || substr(description, length('Gutscheinkarte ') + 1) " +
        "WHERE invoice_id = ? AND description LIKE 'Gutscheinkarte %'",
    ).bind(invoiceId),
  ]);
}

async function voucherInvoice(auth: string) {
  const order = await orderIn(auth, "submitted");
  const response = await call("/invoices", { token: auth, json: { order_id: order.id, reference: "PO-4711" } });
  expect(response.status).toBe(201);
  return ((await response.json()) as any).data[0];
}

async function download(auth: string, path: string, headers: Record<string, string> = {}) {
  const response = await call(path, { token: auth, headers });
  return { response, text: await response.text() };
}

async function downloadBytes(
  auth: string,
  path: string,
  options: { headers?: Record<string, string>; env?: object } = {},
) {
  const response = await call(path, { token: auth, ...options });
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

describe("GET /invoices/{id}/document", () => {
  it.each([
    ["ubl", "", "<Invoice xmlns="],
    ["ubl", "?format=ubl", "<Invoice xmlns="],
    ["cii", "?format=cii", "<rsm:CrossIndustryInvoice"],
  ])("format %s (%s): 200, XML attachment named after the number, strong ETag, private", async (_, query, root) => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const { response, text } = await download(auth, documentOf(invoice.id, query));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/xml; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="${invoice.number}.xml"`);
    expect(response.headers.get("Cache-Control")).toBe("private");
    expect(response.headers.get("ETag")).toMatch(/^"[^"]+"$/);
    expect(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(text).toContain(root);
    expect(text).toContain(invoice.number);
    expect(text).toContain("urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0");
  });

  it("is the same bytes and ETag on every request, from R2 after the first; If-None-Match answers 304", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const first = await download(auth, documentOf(invoice.id));
    const stored = await env.DOCUMENTS.get(`invoices/${invoice.id}/invoice.ubl`);
    expect(await stored?.text()).toBe(first.text);
    const second = await download(auth, documentOf(invoice.id));
    expect(second.text).toBe(first.text);
    const etag = first.response.headers.get("ETag")!;
    expect(second.response.headers.get("ETag")).toBe(etag);

    const cached = await download(auth, documentOf(invoice.id), { "If-None-Match": etag });
    expect(cached.response.status).toBe(304);
    expect(cached.text).toBe("");
    expect(cached.response.headers.get("ETag")).toBe(etag);
    const stale = await download(auth, documentOf(invoice.id), { "If-None-Match": '"other"' });
    expect(stale.response.status).toBe(200);
  });

  it("once stored, is served from R2 without a database call, and only to its own customer", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const first = await download(auth, documentOf(invoice.id));
    const db = new FaultyD1(env.DB).failCall(1);
    const request = new Request(BASE + documentOf(invoice.id), { headers: { Authorization: `Bearer ${auth}` } });
    const stored = await send(request, { DB: db.binding });
    expect(stored.status).toBe(200);
    expect(await stored.text()).toBe(first.text);
    expect(stored.headers.get("Content-Disposition")).toBe(`attachment; filename="${invoice.number}.xml"`);
    expect(stored.headers.get("Content-Type")).toBe("application/xml; charset=utf-8");
    expect(db.count).toBe(0);
    await expectError(await call(documentOf(invoice.id), { token: await token() }), 404, { code: "not_found" });
  });

  it("never changes: a later billing profile or seller variable leaves an issued document alone", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const cii = await download(auth, documentOf(invoice.id, "?format=cii"));
    const changed = await call("/customers/me/billing_profile", {
      token: auth,
      method: "PUT",
      json: { ...newBillingProfile, legal_name: "Ganz Andere GmbH" },
    });
    expect(changed.status).toBe(200);
    // Deleted from R2, it is rendered again from what the invoice kept: the same bytes.
    await env.DOCUMENTS.delete(`invoices/${invoice.id}/invoice.cii`);
    const again = await call(documentOf(invoice.id, "?format=cii"), {
      token: auth,
      env: { CREDITOR_NAME: "Other AG" },
    });
    expect(await again.text()).toBe(cii.text);
    expect(cii.text).toContain("Müller &amp; Söhne Gastronomie GmbH");
    expect(cii.text).not.toContain("Ganz Andere");
  });

  it("an unknown format answers 400 invalid_parameter (format)", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    for (const format of ["xml", "UBL", "PDF", "zugferd", ""])
      await expectError(await call(documentOf(invoice.id, `?format=${format}`), { token: auth }), 400, {
        code: "invalid_parameter",
        source: { parameter: "format" },
      });
  });

  it("errors are JSON envelopes whatever the Accept; others' invoices are 404s; needs invoices:read", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    const accept = { Accept: "application/xml" };
    await expectError(await call(documentOf(invoice.id), { token: await token(), headers: accept }), 404, {
      code: "not_found",
    });
    await expectError(await call(documentOf("not-an-id"), { token: auth, headers: accept }), 404, {
      code: "not_found",
    });
    await expectError(await call(documentOf(invoice.id), { token: await token({ scope: "invoices:write" }) }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });

  it("is never replaced: a first rendering that finds a document already stored answers the stored bytes", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    // As another release's rendering would have left it, stored before this request (without the
    // customer mark, so that the request renders and tries to store its own).
    const key = `invoices/${invoice.id}/invoice.ubl`;
    const earlier = '<?xml version="1.0" encoding="UTF-8"?>\n<Invoice/>\n';
    await env.DOCUMENTS.put(key, earlier, { httpMetadata: { contentType: "application/xml; charset=utf-8" } });
    const { response, text } = await download(auth, documentOf(invoice.id));
    expect(response.status).toBe(200);
    expect(text).toBe(earlier);
    expect(await (await env.DOCUMENTS.get(key))?.text()).toBe(earlier);
    expect(response.headers.get("ETag")).toBe((await env.DOCUMENTS.head(key))?.httpEtag);
    await expectError(await call(documentOf(invoice.id), { token: await token() }), 404, { code: "not_found" });
  });

  it("a malformed If-None-Match is ignored: the document answers 200, not an error", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    for (const value of ["abc", '"unterminated', "W/", ""]) {
      const { response } = await download(auth, documentOf(invoice.id), { "If-None-Match": value });
      expect(response.status, value).toBe(200);
    }
    const etag = (await download(auth, documentOf(invoice.id))).response.headers.get("ETag")!;
    const listed = await download(auth, documentOf(invoice.id), { "If-None-Match": `"other", ${etag}` });
    expect(listed.response.status).toBe(304);
  });

  it("If-None-Match: * answers 304 for a stored document; before it is stored, 200 and stores it", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    for (const format of FORMATS) {
      const path = documentOf(invoice.id, `?format=${format}`);
      const key = keyOf(invoice.id, "invoice", format);
      expect(await env.DOCUMENTS.head(key)).toBeNull();
      const first = await downloadBytes(auth, path, { headers: { "If-None-Match": "*" } });
      expect(first.response.status, format).toBe(200);
      expect(first.bytes.length).toBeGreaterThan(0);
      const stored = await env.DOCUMENTS.get(key);
      expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(first.bytes);
      expect(first.response.headers.get("ETag")).toBe(stored!.httpEtag);

      const cached = await downloadBytes(auth, path, { headers: { "If-None-Match": "*" } });
      expect(cached.response.status, format).toBe(304);
      expect(cached.bytes.length).toBe(0);
      expect(cached.response.headers.get("ETag")).toBe(stored!.httpEtag);
      expect(cached.response.headers.get("Cache-Control")).toBe("private");
      // "*" is no key to another customer's document: 404, not 304.
      await expectError(await call(path, { token: await token(), headers: { "If-None-Match": "*" } }), 404, {
        code: "not_found",
      });
    }
  });

  // docs/api.md parts 13 and 14: "A document is the same bytes on every request, for ever, also across
  // releases". Bytes an earlier release rendered and stored (here: made up, so that no rendering of
  // this release could produce them) are what every later request answers, whatever changed since.
  it("a stored document of an invoice issued before this release stays byte for byte what it was", async () => {
    const auth = await token();
    const customer = customerOfToken(auth);
    const invoice = await voucherInvoice(auth);
    const earlier = {
      ubl: new TextEncoder().encode(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><!-- ${invoice.number}, an earlier release --></Invoice>\n`,
      ),
      cii: new TextEncoder().encode(
        `<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice><!-- ${invoice.number}: Müller &amp; Söhne --></rsm:CrossIndustryInvoice>\n`,
      ),
      // Not UTF-8: any bytes.
      pdf: new Uint8Array([
        ...new TextEncoder().encode("%PDF-1.7\n%"),
        0xe2,
        0xe3,
        0xcf,
        0xd3,
        0x0a,
        0x00,
        0xff,
        ...new TextEncoder().encode("%%EOF\n"),
      ]),
    };
    const contentTypes = {
      ubl: "application/xml; charset=utf-8",
      cii: "application/xml; charset=utf-8",
      pdf: "application/pdf",
    };
    const filename = (format: string) => `${invoice.number}.${format === "pdf" ? "pdf" : "xml"}`;
    for (const format of FORMATS)
      await env.DOCUMENTS.put(keyOf(invoice.id, "invoice", format), earlier[format], {
        httpMetadata: {
          contentType: contentTypes[format],
          contentDisposition: `attachment; filename="${filename(format)}"`,
        },
        customMetadata: { customer },
      });

    const expectEarlier = async (options: { env?: object } = {}) => {
      for (const format of FORMATS) {
        const path = documentOf(invoice.id, `?format=${format}`);
        const etag = (await env.DOCUMENTS.head(keyOf(invoice.id, "invoice", format)))!.httpEtag;
        const { response, bytes } = await downloadBytes(auth, path, options);
        expect(response.status, format).toBe(200);
        expect(bytes, format).toEqual(earlier[format]);
        expect(response.headers.get("ETag")).toBe(etag);
        expect(response.headers.get("Content-Type")).toBe(contentTypes[format]);
        expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="${filename(format)}"`);
        expect(response.headers.get("Cache-Control")).toBe("private");
        for (const ifNoneMatch of [etag, "*"]) {
          const cached = await downloadBytes(auth, path, { ...options, headers: { "If-None-Match": ifNoneMatch } });
          expect(cached.response.status, `${format} ${ifNoneMatch}`).toBe(304);
          expect(cached.bytes.length).toBe(0);
          expect(cached.response.headers.get("ETag")).toBe(etag);
        }
        expect(
          new Uint8Array(await (await env.DOCUMENTS.get(keyOf(invoice.id, "invoice", format)))!.arrayBuffer()),
        ).toEqual(earlier[format]);
      }
    };
    await expectEarlier();
    const changed = await call("/customers/me/billing_profile", {
      token: auth,
      method: "PUT",
      json: { ...newBillingProfile, legal_name: "Ganz Andere GmbH", document_language: "en", leitweg_id: null },
    });
    expect(changed.status).toBe(200);
    await expectEarlier();
    await expectEarlier({ env: { CREDITOR_NAME: "Other AG", CREDITOR_MANAGING_DIRECTORS: "Jemand Anders" } });
    // Served from R2 without a database call.
    const db = new FaultyD1(env.DB).failCall(1);
    const request = new Request(BASE + documentOf(invoice.id, "?format=pdf"), {
      headers: { Authorization: `Bearer ${auth}` },
    });
    const stored = await send(request, { DB: db.binding });
    expect(new Uint8Array(await stored.arrayBuffer())).toEqual(earlier.pdf);
    expect(db.count).toBe(0);
  });

  // docs/api.md part 14: issuing now needs the e-mail (or the mandate of a direct debit), so only an
  // invoice a release before it issued can lack the buyer's electronic address (BT-49).
  it.each([
    ["null", null],
    ["absent", undefined],
  ])(
    "an invoice kept before part 14 whose buyer had no e-mail (%s) and no Leitweg-ID: 409 conflict, nothing stored",
    async (_, email) => {
      const auth = await token();
      const invoice = await voucherInvoice(auth);
      await keptBeforePart14(invoice.id, email);
      for (const format of FORMATS) {
        await expectError(await call(documentOf(invoice.id, `?format=${format}`), { token: auth }), 409, {
          code: "conflict",
        });
        expect(await env.DOCUMENTS.head(keyOf(invoice.id, "invoice", format)), format).toBeNull();
      }
      // Its credit note, once it is cancelled, has none either.
      expect((await call(`/invoices/${invoice.id}/cancel`, { token: auth, method: "POST" })).status).toBe(200);
      for (const format of FORMATS) {
        await expectError(await call(creditNoteOf(invoice.id, `?format=${format}`), { token: auth }), 409, {
          code: "conflict",
        });
        expect(await env.DOCUMENTS.head(keyOf(invoice.id, "credit_note", format)), format).toBeNull();
      }
      // Another customer still learns nothing about it.
      await expectError(await call(documentOf(invoice.id), { token: await token() }), 404, { code: "not_found" });
    },
  );

  it("an invoice kept before part 14 with its buyer's e-mail renders when first requested: German, its lines as stored", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    await keptBeforePart14(invoice.id, newBillingProfile.email);

    const ubl = await download(auth, documentOf(invoice.id));
    expect(ubl.response.status).toBe(200);
    expect(ubl.response.headers.get("Content-Disposition")).toBe(`attachment; filename="${invoice.number}.xml"`);
    // BT-49 the e-mail (no Leitweg-ID was kept), BT-10 the profile's buyer_reference.
    expect(ubl.text).toContain('<cbc:EndpointID schemeID="EM">rechnung@mueller-soehne.example</cbc:EndpointID>');
    expect(ubl.text).not.toContain('schemeID="0204"');
    expect(ubl.text).toContain("<cbc:BuyerReference>Kantine Nord</cbc:BuyerReference>");
    expect(ubl.text).toContain("<cbc:Name>Voucher card Ada Lovelace</cbc:Name>");
    expect(ubl.text).not.toContain("Gutscheinkarte");
    // No managing directors were kept: no BT-33, the seller named by its register entry.
    expect(ubl.text).not.toContain("CompanyLegalForm");
    expect(ubl.text).not.toContain("Geschäftsführung");
    expect(ubl.text).toContain("<cbc:CompanyID>HRB 123456 B, Amtsgericht Berlin-Charlottenburg</cbc:CompanyID>");
    expect(ubl.text).toContain(
      "<cbc:TaxExemptionReason>Nicht steuerbar: Mehrzweckgutschein (§ 3 Abs. 15 UStG)</cbc:TaxExemptionReason>",
    );

    const cii = await downloadBytes(auth, documentOf(invoice.id, "?format=cii"));
    expect(cii.response.status).toBe(200);
    const ciiText = new TextDecoder().decode(cii.bytes);
    expect(ciiText).toContain("<ram:Name>Voucher card Ada Lovelace</ram:Name>");
    expect(ciiText).toContain('<ram:URIID schemeID="EM">rechnung@mueller-soehne.example</ram:URIID>');

    const pdf = await downloadBytes(auth, documentOf(invoice.id, "?format=pdf"));
    expect(pdf.response.status).toBe(200);
    expect(pdf.response.headers.get("Content-Type")).toBe("application/pdf");
    expect(latin1(pdf.bytes)).toContain("/Lang (de-DE)");
    const embedded = new TextDecoder().decode(await embeddedFile(pdf.bytes));
    expect(embedded).toContain("<ram:Name>Voucher card Ada Lovelace</ram:Name>");
    expect(embedded).toContain("<ram:ID>urn:cen.eu:en16931:2017</ram:ID>");

    for (const format of FORMATS) expect(await env.DOCUMENTS.head(keyOf(invoice.id, "invoice", format))).not.toBeNull();
  });

  it("an invoice issued before invoices kept their parties answers 409 conflict", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    await env.DB.prepare("UPDATE invoices SET seller = NULL, buyer = NULL WHERE id = ?").bind(invoice.id).run();
    await expectError(await call(documentOf(invoice.id), { token: auth }), 409, { code: "conflict" });
  });
});

describe("GET /invoices/{id}/credit_note", () => {
  it("an invoice that is not cancelled answers 409 invalid_state", async () => {
    const auth = await token();
    const invoice = await voucherInvoice(auth);
    await expectError(await call(creditNoteOf(invoice.id), { token: auth }), 409, { code: "invalid_state" });
  });

  it.each(["ubl", "cii"])(
    "a cancelled invoice's credit note (%s): type 381, its CN number, referring to the invoice",
    async (format) => {
      const auth = await token();
      const invoice = await voucherInvoice(auth);
      const cancel = await call(`/invoices/${invoice.id}/cancel`, { token: auth, method: "POST" });
      const cancelled = ((await cancel.json()) as any).data;
      const { response, text } = await download(auth, creditNoteOf(invoice.id, `?format=${format}`));
      expect(response.status).toBe(200);
      expect(response.headers.get("Content-Disposition")).toBe(
        `attachment; filename="${cancelled.cancellation_number}.xml"`,
      );
      expect(text).toContain(cancelled.cancellation_number);
      // The preceding invoice (BG-3), its number and date; the credit note issued on the day of
      // cancelled_at in BUSINESS_TIME_ZONE (docs/api.md part 14: Europe/Berlin, not UTC), as kept.
      const day = businessDay(cancelled.cancelled_at);
      const kept = await env.DB.prepare("SELECT cancelled_on FROM invoices WHERE id = ?")
        .bind(invoice.id)
        .first<string>("cancelled_on");
      expect(kept).toBe(day);
      if (format === "ubl") {
        expect(text).toMatch(
          new RegExp(
            `<cac:InvoiceDocumentReference>\\s*<cbc:ID>${invoice.number}</cbc:ID>\\s*` +
              `<cbc:IssueDate>${invoice.booked_on}</cbc:IssueDate>`,
          ),
        );
        expect(text).toMatch(
          new RegExp(`<cbc:ID>${cancelled.cancellation_number}</cbc:ID>\\s*<cbc:IssueDate>${day}</cbc:IssueDate>`),
        );
      } else {
        expect(text).toMatch(
          new RegExp(
            `<ram:InvoiceReferencedDocument>\\s*<ram:IssuerAssignedID>${invoice.number}</ram:IssuerAssignedID>`,
          ),
        );
        expect(text).toContain(`<udt:DateTimeString format="102">${day.replaceAll("-", "")}</udt:DateTimeString>`);
      }
      expect(text).toContain(format === "ubl" ? "<cbc:CreditNoteTypeCode>381<" : "<ram:TypeCode>381<");
      expect(text).toContain(format === "ubl" ? "<CreditNote xmlns=" : "<rsm:CrossIndustryInvoice");
    },
  );

  it("is dated the day of the cancellation in the BUSINESS_TIME_ZONE then in force, not the UTC day", async () => {
    const days: { utc: string; day: string }[] = [];
    for (const zone of ["Pacific/Kiritimati", "Pacific/Pago_Pago"]) {
      const auth = await token();
      const invoice = await voucherInvoice(auth);
      const cancel = await call(`/invoices/${invoice.id}/cancel`, {
        token: auth,
        method: "POST",
        env: { BUSINESS_TIME_ZONE: zone },
      });
      expect(cancel.status).toBe(200);
      const cancelled = ((await cancel.json()) as any).data;
      const day = businessDay(cancelled.cancelled_at, zone);
      expect(cancelled.cancellation_number.slice(3, 7)).toBe(day.slice(0, 4));
      // Rendered later, under the default zone: the day kept with the cancellation.
      const { response, text } = await download(auth, creditNoteOf(invoice.id));
      expect(response.status).toBe(200);
      expect(text).toMatch(
        new RegExp(`<cbc:ID>${cancelled.cancellation_number}</cbc:ID>\\s*<cbc:IssueDate>${day}</cbc:IssueDate>`),
      );
      days.push({ utc: cancelled.cancelled_at.slice(0, 10), day });
    }
    // UTC+14 and UTC-11: at any hour of the day, one of them is on another calendar day than UTC.
    expect(
      days.some(({ utc, day }) => utc !== day),
      JSON.stringify(days),
    ).toBe(true);
  });
});

// docs/api.md part 14: who the buyer is decides the VAT category, the parties' identifiers, BT-10, BT-49
// and the language of the texts.
describe("documents by buyer", () => {
  const productionInvoiceOf = async (auth: string) => (await orderIn(auth, "in_production")).production_invoice;

  it("a Greek buyer's production invoice: category K with its exemption, both VAT ids, delivered to the buyer", async () => {
    const auth = await token();
    await storeBillingProfile(auth, {
      legal_name: "Ελληνικά Γεύματα Α.Ε.",
      street: "Odos Ermou 10",
      postcode: "10563",
      city: "Athen",
      country_code: "GR",
      vat_id: "EL094014201",
      leitweg_id: null,
    });
    const invoice = await productionInvoiceOf(auth);
    const { response, text } = await download(auth, documentOf(invoice.id));
    expect(response.status).toBe(200);
    expect(text).toMatch(
      new RegExp(
        "<cac:TaxCategory>\\s*<cbc:ID>K</cbc:ID>\\s*<cbc:Percent>0</cbc:Percent>\\s*" +
          "<cbc:TaxExemptionReasonCode>VATEX-EU-IC</cbc:TaxExemptionReasonCode>\\s*" +
          "<cbc:TaxExemptionReason>Steuerfreie innergemeinschaftliche Lieferung \\(§ 4 Nr\\. 1 Buchst\\. b, § 6a UStG\\)</cbc:TaxExemptionReason>",
      ),
    );
    expect(text).toMatch(/<cac:ClassifiedTaxCategory>\s*<cbc:ID>K<\/cbc:ID>\s*<cbc:Percent>0<\/cbc:Percent>/);
    expect(text).toContain("<cbc:Name>Kartenproduktion</cbc:Name>");
    expect(text).toContain("<cbc:CompanyID>DE123456789</cbc:CompanyID>");
    expect(text).toContain("<cbc:CompanyID>EL094014201</cbc:CompanyID>");
    expect(text).toMatch(
      /<cac:Delivery>\s*<cac:DeliveryLocation>\s*<cac:Address>\s*<cbc:StreetName>Odos Ermou 10<\/cbc:StreetName>\s*<cbc:CityName>Athen<\/cbc:CityName>\s*<cbc:PostalZone>10563<\/cbc:PostalZone>\s*<cac:Country>\s*<cbc:IdentificationCode>GR<\/cbc:IdentificationCode>/,
    );
    expect(text).toMatch(/<cac:DeliveryParty>\s*<cac:PartyName>\s*<cbc:Name>Ελληνικά Γεύματα Α\.Ε\.<\/cbc:Name>/);
    expect(text).not.toContain("<cbc:ID>S</cbc:ID>");
  });

  it("an English profile's voucher invoice: English lines and exemption text, an English PDF", async () => {
    const auth = await token();
    await storeBillingProfile(auth, { document_language: "en" });
    const invoice = await voucherInvoice(auth);
    const { text } = await download(auth, documentOf(invoice.id));
    expect(text).toContain("<cbc:Name>Voucher card Ada Lovelace</cbc:Name>");
    expect(text).toContain(
      "<cbc:TaxExemptionReason>Not subject to VAT: multi-purpose voucher (§ 3 (15) UStG)</cbc:TaxExemptionReason>",
    );
    expect(text).not.toContain("Gutscheinkarte");
    const pdf = await downloadBytes(auth, documentOf(invoice.id, "?format=pdf"));
    expect(pdf.response.status).toBe(200);
    expect(latin1(pdf.bytes)).toContain("/Lang (en-GB)");
  });

  it("a Leitweg-ID is BT-10 and BT-49 (scheme 0204); without one, BT-49 is the e-mail (EM)", async () => {
    const leitweg = await token();
    await storeBillingProfile(leitweg, { leitweg_id: "04011000-12345-03" });
    const publicBuyer = await download(leitweg, documentOf((await voucherInvoice(leitweg)).id));
    expect(publicBuyer.text).toContain("<cbc:BuyerReference>04011000-12345-03</cbc:BuyerReference>");
    expect(publicBuyer.text).toContain('<cbc:EndpointID schemeID="0204">04011000-12345-03</cbc:EndpointID>');
    expect(publicBuyer.text).not.toContain('<cbc:EndpointID schemeID="EM">rechnung@mueller-soehne.example');

    const email = await token();
    await storeBillingProfile(email, { leitweg_id: null });
    const privateBuyer = await download(email, documentOf((await voucherInvoice(email)).id));
    expect(privateBuyer.text).toContain("<cbc:BuyerReference>Kantine Nord</cbc:BuyerReference>");
    expect(privateBuyer.text).toContain(
      '<cbc:EndpointID schemeID="EM">rechnung@mueller-soehne.example</cbc:EndpointID>',
    );
    expect(privateBuyer.text).not.toContain('schemeID="0204"');
  });
});
