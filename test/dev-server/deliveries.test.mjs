// CONTRACT part 17 end to end, under real `wrangler dev` (the API Worker with the jobs and documents
// Workers, their local queues, D1, R2 and the jobs Worker's emulated `send_email` binding EMAIL): invoices
// of each kind (voucher, production, shipping) for profiles of each format (a Leitweg-ID buyer: one
// XRechnung UBL; one asking for CII, in English; the others the ZUGFeRD PDF), one cancelled (its credit
// note), every message checked through the dev server's local explorer
// (GET /cdn-cgi/local/explorer/api/local/email/sending on the API's port, and ?email_id=): recipient,
// sender, reply-to, subject, text, headers, exactly one attachment, whose file under .wrangler/tmp/email/
// holds the document's bytes. Ports: free from DEV_SERVER_PORT (default 8900) + 350 on.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { sign } from "hono/jwt";
import { startWorker } from "../../scripts/local-worker.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const SENT_WITHIN_MS = 60_000;
const SCOPES = "card_orders:read card_orders:write invoices:read invoices:write fulfilment payments:read";
const EXPLORER = "/cdn-cgi/local/explorer/api/local/email/sending";

/** Every file under `dir`, recursively. */
const filesUnder = (dir) =>
  existsSync(dir)
    ? readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? filesUnder(path) : [path];
      })
    : [];

const PROFILE = { street: "Hauptstraße 5", postcode: "80331", city: "München", country_code: "DE" };

test("every issued invoice and credit note reaches its buyer by e-mail, its document the one attachment", async (t) => {
  const port = await firstFreePorts(
    Number(process.env.DEV_SERVER_PORT ?? 8900) + 350,
    [0, INSPECTOR_OFFSET],
    "DEV_SERVER_PORT",
  );
  const secret = randomBytes(32).toString("hex");
  const w = await startWorker({ name: "dev-deliveries", port, vars: { JWT_SECRET: secret } });
  t.after(() => w.stop());
  const customer = async () =>
    sign(
      {
        sub: "dev-deliveries",
        customer_id: `c-${randomUUID()}`,
        scope: SCOPES,
        exp: Math.floor(Date.now() / 1000) + 1800,
      },
      secret,
      "HS256",
    );
  const api = async (token, method, path, json) => {
    const response = await fetch(w.url + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(json && { "Content-Type": "application/json" }) },
      body: json && JSON.stringify(json),
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return { bytes, body: (response.headers.get("Content-Type") ?? "").includes("json") ? JSON.parse(text) : text };
  };
  /** A customer with a profile, an order of one entry led to `state`, and the order's invoices. */
  const buyer = async (profile, payment, state, amount) => {
    const token = await customer();
    await api(token, "PUT", "/customers/me/billing_profile", { ...PROFILE, ...profile });
    const order = (await api(token, "POST", "/card_orders", { voucher_category: "meal", payment_method: payment })).body
      .data[0];
    await api(token, "POST", `/card_orders/${order.id}/entries`, {
      voucher_owner_id: "o",
      card_holder_name: "Ada Lovelace",
      amount,
    });
    await api(token, "POST", `/card_orders/${order.id}/submit`);
    await api(token, "POST", "/invoices", { order_id: order.id });
    for (const action of state === "delivered" ? ["start_production", "deliver"] : [])
      await api(token, "POST", `/card_orders/${order.id}/${action}`);
    const invoices = (await api(token, "GET", `/invoices?order_id=${order.id}`)).body.data;
    return { token, profile, invoices };
  };
  const pdf = await buyer(
    { legal_name: "Kantine GmbH", email: "rechnung@kantine.example" },
    "bank_transfer",
    "delivered",
    "50.00",
  );
  const ubl = await buyer(
    {
      legal_name: "Stadt Musterhausen",
      email: "eingang@stadt.example",
      leitweg_id: "04011000-12345-03",
      direct_debit_iban: "DE89370400440532013000",
      direct_debit_mandate_reference: "STADT-1",
      direct_debit_mandate_signed_on: "2025-06-02",
    },
    "direct_debit",
    "submitted",
    "40.00",
  );
  const cii = await buyer(
    { legal_name: "Acme Ltd", email: "ap@acme.example", invoice_format: "cii", document_language: "en" },
    "bank_transfer",
    "submitted",
    "12.34",
  );
  assert.equal(pdf.invoices.length, 3);
  const cancelled = (await api(cii.token, "POST", `/invoices/${cii.invoices[0].id}/cancel`)).body.data;

  // Within a minute every delivery is sent (none pending).
  const office = await customer();
  const deadline = Date.now() + SENT_WITHIN_MS;
  for (;;) {
    const pending = (await api(office, "GET", "/invoice_deliveries?state=pending")).body.meta.total_entries;
    if (pending === 0) break;
    assert.ok(Date.now() < deadline, `${pending} deliveries still pending after ${SENT_WITHIN_MS} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }

  const listed = await fetch(w.url + EXPLORER);
  assert.equal(listed.status, 200);
  const { result: messages } = await listed.json();
  const expected = [
    ...pdf.invoices.map((invoice) => ({ who: pdf, invoice, document: "invoice", format: "pdf" })),
    { who: ubl, invoice: ubl.invoices[0], document: "invoice", format: "ubl" },
    { who: cii, invoice: cii.invoices[0], document: "invoice", format: "cii" },
    { who: cii, invoice: cancelled, document: "credit_note", format: "cii" },
  ];
  assert.equal(messages.length, expected.length, JSON.stringify(messages.map((m) => m.subject)));
  const tmp = [join(ROOT, ".wrangler/tmp/email"), join(ROOT, ".wrangler/generated/.wrangler/tmp/email")];
  for (const { who, invoice, document, format } of expected) {
    const deliveries = (await api(who.token, "GET", `/invoices/${invoice.id}/deliveries`)).body.data;
    const delivery = deliveries.find((d) => d.document === document);
    assert.equal(deliveries.length, invoice.id === cancelled.id ? 2 : 1);
    assert.deepEqual([delivery.state, delivery.format, delivery.attempts], ["sent", format, 1]);
    const message = messages.find((m) => m.messageId === delivery.message_id);
    assert.ok(message, `no message ${delivery.message_id} in the explorer`);
    const number = document === "credit_note" ? invoice.cancellation_number : invoice.number;
    const extension = format === "pdf" ? "pdf" : "xml";
    const en = who.profile.document_language === "en";
    const kind = document === "credit_note" ? (en ? "Credit note" : "Rechnungskorrektur") : en ? "Invoice" : "Rechnung";
    assert.deepEqual(
      {
        to: message.to,
        from: message.from,
        replyTo: message.replyTo,
        subject: message.subject,
        headers: message.headers,
        attachments: message.attachments.map(({ size: _, ...rest }) => rest),
      },
      {
        to: [who.profile.email],
        from: '"Voucher Cards GmbH" <rechnung@voucher-cards.example>',
        replyTo: "billing@voucher-cards.example",
        subject: `${kind} ${number} ${en ? "from" : "der"} Voucher Cards GmbH`,
        headers: { "X-Invoice-Number": invoice.number, "X-Delivery-Id": delivery.id },
        attachments: [
          {
            filename: `${number}.${extension}`,
            contentType: extension === "pdf" ? "application/pdf" : "application/xml",
            disposition: "attachment",
          },
        ],
      },
    );
    const one = await (await fetch(`${w.url}${EXPLORER}?email_id=${encodeURIComponent(message.messageId)}`)).json();
    const { text } = one.result;
    assert.match(text, new RegExp(en ? "^Dear Sir or Madam,\n\n" : "^Guten Tag,\n\n"));
    if (document === "credit_note") assert.ok(text.includes(`${number}`) && text.includes(invoice.number), text);
    else if (invoice.payment_method === "direct_debit")
      assert.ok(text.includes("Mandatsreferenz: STADT-1\nGläubiger-Identifikationsnummer: DE98ZZZ09999999999"), text);
    else assert.ok(text.includes("IBAN: DE02 1203 0000 0000 2020 51"), text);
    // The attachment on disk: the document's own bytes, as GET serves them.
    const id = message.messageId.replace(/^<|>$/g, "");
    const files = tmp.flatMap(filesUnder).filter((path) => path.endsWith(`${id}-1.${extension}`));
    assert.ok(files.length >= 1, `no attachment file for ${id} under ${tmp.join(" or ")}`);
    const path = document === "credit_note" ? "credit_note" : "document";
    const served = (await api(who.token, "GET", `/invoices/${invoice.id}/${path}?format=${format}`)).bytes;
    assert.deepEqual(new Uint8Array(readFileSync(files[0])), served);
  }
});
