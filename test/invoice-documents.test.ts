import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, newBillingProfile, orderIn, send, token } from "./support/api";
import { FaultyD1 } from "./support/faulty-d1";

const documentOf = (id: string, query = "") => `/invoices/${id}/document${query}`;
const creditNoteOf = (id: string, query = "") => `/invoices/${id}/credit_note${query}`;

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

  it("a direct-debit invoice whose profile lost its mandate before it was issued has no e-invoice: 409", async () => {
    const auth = await token();
    const order = await orderIn(auth, "submitted", {
      order: { voucher_category: "mixed", payment_method: "direct_debit" },
    });
    const { direct_debit_iban, direct_debit_mandate_reference, ...without } = newBillingProfile;
    const put = await call("/customers/me/billing_profile", { token: auth, method: "PUT", json: without });
    expect(put.status).toBe(200);
    const created = await call("/invoices", { token: auth, json: { order_id: order.id } });
    expect(created.status).toBe(201);
    const invoice = ((await created.json()) as any).data[0];
    await expectError(await call(documentOf(invoice.id), { token: auth }), 409, { code: "conflict" });
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
      // The preceding invoice (BG-3), its number and date; the credit note issued on the day of cancelled_at.
      const day = cancelled.cancelled_at.slice(0, 10);
      if (format === "ubl") {
        expect(text).toMatch(
          new RegExp(
            `<cac:InvoiceDocumentReference>\\s*<cbc:ID>${invoice.number}</cbc:ID>\\s*` +
              `<cbc:IssueDate>${invoice.booked_on}</cbc:IssueDate>`,
          ),
        );
        expect(text).toContain(`<cbc:IssueDate>${day}</cbc:IssueDate>`);
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
});
