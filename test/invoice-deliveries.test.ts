import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { redispatchDeliveries } from "../src/deliveries/dispatch";
import { INTERFACE_FIELDS } from "./interface-fields";
import {
  call,
  createInvoice,
  customerOfToken,
  expectError,
  expectJson,
  ISO_MS,
  listLink,
  orderIn,
  singlePage,
  storeBillingProfile,
  token,
  UUID,
} from "./support/api";
import {
  deliveriesQueued,
  drainDeliveries,
  emailEvent,
  feedEmailEvents,
  RecordingEmail,
  setDelivery,
  storedDeliveries,
} from "./support/deliveries";
import { FaultyD1 } from "./support/faulty-d1";
import { backOffice } from "./support/payments";
import { drain, queued } from "./support/queue";

// docs/api.md part 17: every issued invoice and credit note is e-mailed to the buyer, from the jobs
// Worker, with the document's stored bytes as its one attachment.

const de = (day: string) => day.split("-").reverse().join(".");
const grouped = (text: string) => text.replace(/(.{4})(?=.)/g, "$1 ");

/** A submitted bank-transfer order of one entry of 75.05 for a fresh customer, and its voucher invoice. */
async function issued(profile: Parameters<typeof storeBillingProfile>[1] = {}, payment = "bank_transfer") {
  const auth = await token();
  await storeBillingProfile(auth, profile);
  const order = await orderIn(auth, "submitted", {
    order: { voucher_category: "meal", payment_method: payment },
    entries: [{ voucher_owner_id: "owner-1", card_holder_name: "Ada Lovelace", amount: "75.05" }],
  });
  const invoice = await createInvoice(auth, order.id, "PO-1");
  return { auth, order, invoice };
}

/** The events queued so far go through the events consumer, which queues their invoices' new deliveries. */
const startDeliveries = () => drain({ DELIVERIES: deliveriesQueued.binding });

/** Issues, starts and sends: the delivery consumer's run with `email`. */
async function sendAll(email: RecordingEmail) {
  await startDeliveries();
  return drainDeliveries({ EMAIL: email.binding });
}

const documentOf = async (auth: string, id: string, path: string) =>
  new Uint8Array(await (await call(`/invoices/${id}/${path}`, { token: auth })).arrayBuffer());

const bytes = (content: unknown) => (content instanceof Uint8Array ? content : new Uint8Array(content as ArrayBuffer));

beforeEach(() => {
  queued.take();
  deliveriesQueued.take();
});

describe("a delivery is written in the batch that issues its document", () => {
  it("the voucher invoice's: pending, to the profile's e-mail, ubl for a Leitweg-ID buyer; GET lists it", async () => {
    const { auth, invoice } = await issued();
    const [row] = await storedDeliveries(invoice.id);
    expect(row).toStrictEqual({
      id: expect.stringMatching(UUID),
      invoice_id: invoice.id,
      customer_id: customerOfToken(auth),
      document: "invoice",
      reminder_id: null,
      channel: "email",
      recipient: "rechnung@mueller-soehne.example",
      format: "ubl",
      state: "pending",
      attempts: 0,
      message_id: null,
      error: null,
      created_at: invoice.created_at,
      sent_at: null,
      updated_at: invoice.created_at,
      cause: "invoice",
      attempt_after: invoice.created_at,
    });
    const path = `/invoices/${invoice.id}/deliveries`;
    const shown = {
      id: row!.id,
      type: "invoice_delivery",
      invoice_id: invoice.id,
      document: "invoice",
      reminder_id: null,
      channel: "email",
      recipient: "rechnung@mueller-soehne.example",
      format: "ubl",
      state: "pending",
      attempts: 0,
      message_id: null,
      error: null,
      created_at: invoice.created_at,
      sent_at: null,
      updated_at: invoice.created_at,
    };
    expect(Object.keys(shown)).toStrictEqual([...INTERFACE_FIELDS.invoice_delivery]);
    const self = listLink(`${path}?page=1&page_size=25`);
    await expectJson(await call(path, { token: auth }), 200, {
      meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: 1 },
      data: [shown],
      links: { self, first: self, last: self, prev: null, next: null },
    });
    // Nothing is sent on the request: the delivery waits for the invoice's event.
    expect(deliveriesQueued.messages).toStrictEqual([]);
  });

  it("resolves the format once: pdf without a Leitweg-ID, the profile's own when set; none is skipped and never sent", async () => {
    const plain = await issued({ leitweg_id: null });
    expect((await storedDeliveries(plain.invoice.id)).map((r) => [r.format, r.state])).toStrictEqual([
      ["pdf", "pending"],
    ]);

    const auth = await token();
    await storeBillingProfile(auth);
    await setDelivery(auth, "cii");
    const order = await orderIn(auth, "submitted", {
      entries: [{ voucher_owner_id: "o", card_holder_name: "A", amount: "1.00" }],
    });
    const cii = await createInvoice(auth, order.id);
    expect((await storedDeliveries(cii.id)).map((r) => r.format)).toStrictEqual(["cii"]);
    // A later change of the profile changes no delivery made.
    await setDelivery(auth, "pdf", "none");
    expect((await storedDeliveries(cii.id)).map((r) => [r.format, r.state])).toStrictEqual([["cii", "pending"]]);

    const none = await token();
    await storeBillingProfile(none);
    await setDelivery(none, null, "none");
    const quiet = await createInvoice(none, (await orderIn(none, "submitted")).id);
    const [skipped] = await storedDeliveries(quiet.id);
    expect([skipped!.state, skipped!.format]).toStrictEqual(["skipped", "ubl"]);
    const email = new RecordingEmail();
    await sendAll(email);
    expect(email.sent.map((m) => m.headers!["X-Invoice-Number"])).not.toContain(quiet.number);
    expect((await storedDeliveries(quiet.id))[0]!.state).toBe("skipped");
  });

  it("the production and shipping invoices' too, each its own, and the credit note's when an invoice is cancelled", async () => {
    const auth = await token();
    await storeBillingProfile(auth, { leitweg_id: null });
    const order = await orderIn(auth, "delivered");
    const invoices = ((await (await call(`/invoices?order_id=${order.id}`, { token: auth })).json()) as any).data;
    expect(invoices).toHaveLength(2);
    for (const invoice of invoices)
      expect((await storedDeliveries(invoice.id)).map((r) => [r.document, r.format, r.cause])).toStrictEqual([
        ["invoice", "pdf", "invoice"],
      ]);
    const { auth: other, invoice } = await issued();
    expect((await call(`/invoices/${invoice.id}/cancel`, { token: other, method: "POST" })).status).toBe(200);
    const rows = await storedDeliveries(invoice.id);
    expect(rows.map((r) => [r.document, r.state, r.format, r.cause])).toStrictEqual([
      ["invoice", "pending", "ubl", "invoice"],
      ["credit_note", "pending", "ubl", "credit_note"],
    ]);
  });
});

describe("the jobs Worker sends each delivery through EMAIL", () => {
  it("a bank-transfer invoice in German: sender, recipient, subject, text, one attachment of the document's bytes", async () => {
    const { auth, invoice } = await issued();
    const email = new RecordingEmail();
    const outcomes = await sendAll(email);
    const [row] = await storedDeliveries(invoice.id);
    expect(outcomes.map((o) => [o.body.deliveryId, o.acked])).toContainEqual([row!.id, true]);
    const message = email.sent.find((m) => m.headers!["X-Invoice-Number"] === invoice.number)!;
    const { attachments, ...rest } = message;
    const rf = grouped(
      `RF${String(98 - Number(BigInt(`${invoice.number.replaceAll("-", "")}RF00`.replace(/[A-Z]/g, (l) => String(l.charCodeAt(0) - 55))) % 97n)).padStart(2, "0")}${invoice.number.replaceAll("-", "")}`,
    );
    expect(rest).toStrictEqual({
      from: { email: "rechnung@voucher-cards.example", name: "Voucher Cards GmbH" },
      to: "rechnung@mueller-soehne.example",
      replyTo: "billing@voucher-cards.example",
      subject: `Rechnung ${invoice.number} der Voucher Cards GmbH`,
      text: [
        "Guten Tag,",
        `anbei erhalten Sie unsere Rechnung ${invoice.number} vom ${de(invoice.booked_on)} über 75,05 EUR.`,
        [
          `Bitte überweisen Sie den Betrag bis zum ${de(invoice.due_on)} auf unser Konto:`,
          "Empfänger: Voucher Cards GmbH",
          "IBAN: DE02 1203 0000 0000 2020 51",
          "BIC: BYLADEM1001",
          `Verwendungszweck: ${rf}`,
        ].join("\n"),
        `Das Dokument ist als XRechnung (UBL) angehängt: ${invoice.number}.xml`,
        "Mit freundlichen Grüßen\nVoucher Cards GmbH\nErika Mustermann\n+49 30 1234567\nbilling@voucher-cards.example\n",
      ].join("\n\n"),
      headers: { "X-Invoice-Number": invoice.number, "X-Delivery-Id": row!.id },
    });
    expect(attachments).toHaveLength(1);
    const [attachment] = attachments!;
    expect({ ...attachment, content: undefined }).toStrictEqual({
      filename: `${invoice.number}.xml`,
      type: "application/xml",
      content: undefined,
      disposition: "attachment",
    });
    expect(bytes(attachment!.content)).toStrictEqual(await documentOf(auth, invoice.id, "document?format=ubl"));

    const sent = (await storedDeliveries(invoice.id))[0]!;
    expect(sent).toMatchObject({
      state: "sent",
      attempts: 1,
      error: null,
      message_id: expect.stringMatching(/^<msg-/),
    });
    expect(sent.sent_at).toMatch(ISO_MS);
    const events = queued.take().filter((m) => m.kind === "event" && m.event.type.startsWith("invoice_delivery."));
    expect(
      events.map((m) => m.kind === "event" && [m.event.type, (m.event.data as any).id, (m.event.data as any).state]),
    ).toStrictEqual([["invoice_delivery.sent", sent.id, "sent"]]);
    const path = `/invoices/${invoice.id}/deliveries`;
    const listed = await expectJson(await call(path, { token: auth }), 200, expect.anything());
    expect(events.map((m) => m.kind === "event" && m.event.data)).toStrictEqual(listed.data);
  });

  it("a direct-debit invoice in English, as PDF: the SEPA pre-notification, and the PDF's bytes", async () => {
    const { auth, invoice } = await issued({ leitweg_id: null, document_language: "en" }, "direct_debit");
    const email = new RecordingEmail();
    await sendAll(email);
    const message = email.sent.find((m) => m.headers!["X-Invoice-Number"] === invoice.number)!;
    expect(message.subject).toBe(`Invoice ${invoice.number} from Voucher Cards GmbH`);
    expect(message.text).toContain(
      "Pre-notification of the SEPA direct debit: we will collect EUR 75.05 from your account DE89 3704 0044 0532 0130 00 on ",
    );
    const collection = /on (\d+ \w+ \d{4})\.\n/.exec(message.text!)![1]!;
    expect(Date.parse(`${collection} UTC`)).toBeGreaterThanOrEqual(Date.parse(`${invoice.due_on}T00:00:00Z`));
    expect(message.text).toContain("Mandate reference: MANDATE-0001\nCreditor identifier: DE98ZZZ09999999999");
    expect(message.attachments!.map((a) => [a.filename, a.type])).toStrictEqual([
      [`${invoice.number}.pdf`, "application/pdf"],
    ]);
    expect(bytes(message.attachments![0]!.content)).toStrictEqual(
      await documentOf(auth, invoice.id, "document?format=pdf"),
    );
  });

  it("a cancelled invoice's credit note: its CN number, subject and bytes; X-Invoice-Number the invoice's", async () => {
    const { auth, invoice } = await issued();
    const cancelled = await expectJson(
      await call(`/invoices/${invoice.id}/cancel`, { token: auth, method: "POST" }),
      200,
      expect.anything(),
    );
    const number = cancelled.data.cancellation_number;
    const email = new RecordingEmail();
    await sendAll(email);
    const messages = email.sent.filter((m) => m.headers!["X-Invoice-Number"] === invoice.number);
    expect(messages.map((m) => m.subject).sort()).toStrictEqual(
      [
        `Rechnung ${invoice.number} der Voucher Cards GmbH`,
        `Rechnungskorrektur ${number} der Voucher Cards GmbH`,
      ].sort(),
    );
    const note = messages.find((m) => m.subject.startsWith("Rechnungskorrektur"))!;
    expect(note.text).toContain(`anbei erhalten Sie die Rechnungskorrektur ${number} vom `);
    expect(note.attachments!.map((a) => a.filename)).toStrictEqual([`${number}.xml`]);
    expect(bytes(note.attachments![0]!.content)).toStrictEqual(
      await documentOf(auth, invoice.id, "credit_note?format=ubl"),
    );
  });

  it("a message twice sends once; a delivery sent changes no more", async () => {
    const { invoice } = await issued();
    await startDeliveries();
    const [message] = deliveriesQueued.messages.filter((m) => m.deliveryId === (undefined as never) || true);
    deliveriesQueued.messages.push({ ...message! });
    const email = new RecordingEmail();
    await drainDeliveries({ EMAIL: email.binding });
    deliveriesQueued.messages.push({ ...message! });
    await drainDeliveries({ EMAIL: email.binding });
    expect(email.sent.filter((m) => m.headers!["X-Invoice-Number"] === invoice.number)).toHaveLength(1);
    expect((await storedDeliveries(invoice.id))[0]).toMatchObject({ state: "sent", attempts: 1 });
  });
});

describe("binding errors", () => {
  async function pendingOne() {
    const { invoice } = await issued();
    await startDeliveries();
    const row = (await storedDeliveries(invoice.id))[0]!;
    expect(deliveriesQueued.messages).toContainEqual({ deliveryId: row.id });
    deliveriesQueued.take();
    return { invoice, id: row.id as string };
  }
  /** Makes the retry's time come now (the wait passed), and runs its message. */
  async function retryNow(id: string, email: RecordingEmail) {
    await env.DB.prepare("UPDATE invoice_deliveries SET attempt_after = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), id)
      .run();
    deliveriesQueued.messages.push({ deliveryId: id });
    return drainDeliveries({ EMAIL: email.binding });
  }

  it("passing ones (rate, daily limit, internal) are retried with growing delays, 5 attempts, then failed with the error", async () => {
    const { invoice, id } = await pendingOne();
    const email = new RecordingEmail().failWith(
      "E_RATE_LIMIT_EXCEEDED",
      "E_DAILY_LIMIT_EXCEEDED",
      "E_INTERNAL_SERVER_ERROR",
      "E_RATE_LIMIT_EXCEEDED",
      "E_RATE_LIMIT_EXCEEDED",
    );
    const delays: (number | undefined)[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const [outcome] = await retryNow(id, email);
      delays.push(outcome!.retried?.delaySeconds);
      const row = (await storedDeliveries(invoice.id))[0]!;
      expect([row.attempts, row.state]).toStrictEqual([attempt, attempt < 5 ? "pending" : "failed"]);
    }
    expect(delays).toStrictEqual([30, 120, 480, 1920, undefined]);
    const failed = (await storedDeliveries(invoice.id))[0]!;
    expect(failed).toMatchObject({
      state: "failed",
      attempts: 5,
      message_id: null,
      error: "E_RATE_LIMIT_EXCEEDED: Email Service: E_RATE_LIMIT_EXCEEDED",
    });
    expect(email.sent).toStrictEqual([]);
    const events = queued
      .take()
      .flatMap((m) => (m.kind === "event" && m.event.type.startsWith("invoice_delivery.") ? [m.event] : []));
    expect(events.map((e) => [e.type, (e.data as any).state, (e.data as any).error])).toStrictEqual([
      ["invoice_delivery.failed", "failed", failed.error],
    ]);
    // Failed is terminal: another message sends nothing.
    await retryNow(id, new RecordingEmail());
    expect((await storedDeliveries(invoice.id))[0]!.state).toBe("failed");
  });

  it.each(["E_RECIPIENT_SUPPRESSED", "E_RECIPIENT_NOT_ALLOWED", "E_SENDER_NOT_VERIFIED", "E_CONTENT_TOO_LARGE"])(
    "%s fails the delivery at once",
    async (code) => {
      const { invoice, id } = await pendingOne();
      const [outcome] = await retryNow(id, new RecordingEmail().failWith(code));
      expect(outcome).toMatchObject({ acked: true });
      expect(outcome!.retried).toBeUndefined();
      expect((await storedDeliveries(invoice.id))[0]).toMatchObject({
        state: "failed",
        attempts: 1,
        error: `${code}: Email Service: ${code}`,
      });
      const types = queued.take().flatMap((m) => (m.kind === "event" ? [m.event.type] : []));
      expect(types).toStrictEqual(["invoice_delivery.failed"]);
    },
  );

  it("a crash between sending and recording sends at most once more, never none", async () => {
    const { invoice, id } = await pendingOne();
    const email = new RecordingEmail();
    // Calls: the delivery, its claim, the invoice and lines, then the record of the send: lost.
    const db = new FaultyD1(env.DB).failCall(4, "before");
    deliveriesQueued.messages.push({ deliveryId: id });
    const [outcome] = await drainDeliveries({ EMAIL: email.binding, DB: db.binding });
    expect(db.injected).toBe(1);
    expect(outcome!.retried).toBeDefined();
    expect(email.sent).toHaveLength(1);
    expect((await storedDeliveries(invoice.id))[0]).toMatchObject({ state: "pending", attempts: 1 });
    // Its lease holds: a message now sends nothing.
    deliveriesQueued.messages.push({ deliveryId: id });
    await drainDeliveries({ EMAIL: email.binding });
    expect(email.sent).toHaveLength(1);
    // Once the lease ends: once more, recorded.
    await retryNow(id, email);
    expect(email.sent).toHaveLength(2);
    expect((await storedDeliveries(invoice.id))[0]).toMatchObject({ state: "sent", attempts: 2 });
  });

  it("a D1 fault on the claim loses nothing: nothing sent, and the next attempt sends", async () => {
    const { invoice, id } = await pendingOne();
    const email = new RecordingEmail();
    const db = new FaultyD1(env.DB).failCall(2, "after");
    deliveriesQueued.messages.push({ deliveryId: id });
    const [outcome] = await drainDeliveries({ EMAIL: email.binding, DB: db.binding });
    expect([db.injected, outcome!.acked, email.sent.length]).toStrictEqual([1, false, 0]);
    await retryNow(id, email);
    expect(email.sent).toHaveLength(1);
    expect((await storedDeliveries(invoice.id))[0]).toMatchObject({ state: "sent", attempts: 2 });
  });

  it("the per-minute cron queues again a delivery whose message was lost, and only that", async () => {
    const { id } = await pendingOne();
    await env.DB.prepare("UPDATE invoice_deliveries SET attempt_after = ? WHERE id = ?")
      .bind(new Date(Date.now() - 61_000).toISOString(), id)
      .run();
    const sent = await redispatchDeliveries({ ...env, DELIVERIES: deliveriesQueued.binding });
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(deliveriesQueued.take()).toContainEqual({ deliveryId: id });
  });
});

describe("Email Service's delivery events", () => {
  async function sentOne() {
    const { auth, invoice } = await issued();
    await sendAll(new RecordingEmail());
    queued.take();
    const row = (await storedDeliveries(invoice.id))[0]!;
    return { auth, invoice, messageId: row.message_id as string };
  }
  const deliveryEvents = () =>
    queued
      .take()
      .flatMap((m) => (m.kind === "event" && m.event.type.startsWith("invoice_delivery.") ? [m.event.type] : []));

  it("delivered moves a sent delivery to delivered once; twice, or a bounce after it, changes nothing", async () => {
    const { invoice, messageId } = await sentOne();
    await feedEmailEvents([emailEvent("deferred", messageId), emailEvent("delivered", messageId)]);
    expect((await storedDeliveries(invoice.id))[0]!.state).toBe("delivered");
    expect(deliveryEvents()).toStrictEqual(["invoice_delivery.delivered"]);
    const outcomes = await feedEmailEvents([
      emailEvent("delivered", messageId),
      emailEvent("bounced", messageId, { bounce: { type: "hard" }, terminal: true }),
    ]);
    expect(outcomes.every((o) => o.acked)).toBe(true);
    expect((await storedDeliveries(invoice.id))[0]!.state).toBe("delivered");
    expect(deliveryEvents()).toStrictEqual([]);
  });

  it.each([
    ["a hard bounce", emailEvent("bounced", "", { bounce: { type: "hard" }, terminal: true })],
    ["a rejection", emailEvent("rejected", "")],
    ["a terminal failure", emailEvent("failed", "", { terminal: true })],
  ])("%s moves it to bounced, and a delivered after it changes nothing", async (_, event) => {
    const { invoice, messageId } = await sentOne();
    await feedEmailEvents([{ ...event, payload: { ...event.payload, messageId } }, emailEvent("delivered", messageId)]);
    expect((await storedDeliveries(invoice.id))[0]!.state).toBe("bounced");
    expect(deliveryEvents()).toStrictEqual(["invoice_delivery.bounced"]);
  });

  it("deferred and a soft bounce still retried change nothing; an unknown messageId is looked at again, then dropped", async () => {
    const { invoice, messageId } = await sentOne();
    await feedEmailEvents([
      emailEvent("deferred", messageId),
      emailEvent("bounced", messageId, { bounce: { type: "soft" }, terminal: false }),
    ]);
    expect((await storedDeliveries(invoice.id))[0]!.state).toBe("sent");
    const [first] = await feedEmailEvents([emailEvent("delivered", "<nobody@example>")]);
    expect(first).toMatchObject({ acked: false, retried: { delaySeconds: 60 } });
    const [last] = await feedEmailEvents([emailEvent("delivered", "<nobody@example>")], 3);
    expect(last).toMatchObject({ acked: true });
    expect(deliveryEvents()).toStrictEqual([]);
  });
});

describe("POST /invoices/{id}/deliveries", () => {
  it("sends the invoice again to another address and format: 201 with the pending delivery, then sent", async () => {
    const { auth, invoice } = await issued();
    const path = `/invoices/${invoice.id}/deliveries`;
    const body = await expectJson(
      await call(path, {
        token: auth,
        json: { recipient: "einkauf@buyer.example", format: "cii" },
        env: { DELIVERIES: deliveriesQueued.binding },
      }),
      201,
      singlePage(path, [
        {
          id: expect.stringMatching(UUID),
          type: "invoice_delivery",
          invoice_id: invoice.id,
          document: "invoice",
          reminder_id: null,
          channel: "email",
          recipient: "einkauf@buyer.example",
          format: "cii",
          state: "pending",
          attempts: 0,
          message_id: null,
          error: null,
          created_at: expect.stringMatching(ISO_MS),
          sent_at: null,
          updated_at: expect.stringMatching(ISO_MS),
        },
      ]),
    );
    const id = body.data[0].id;
    expect(deliveriesQueued.messages).toStrictEqual([{ deliveryId: id }]);
    const email = new RecordingEmail();
    await drainDeliveries({ EMAIL: email.binding });
    expect(email.sent.map((m) => [m.to, m.attachments!.map((a) => a.filename)])).toStrictEqual([
      ["einkauf@buyer.example", [`${invoice.number}.xml`]],
    ]);
    expect(bytes(email.sent[0]!.attachments![0]!.content)).toStrictEqual(
      await documentOf(auth, invoice.id, "document?format=cii"),
    );
    expect((await storedDeliveries(invoice.id)).map((r) => [r.cause, r.state])).toStrictEqual([
      ["invoice", "pending"],
      [null, "sent"],
    ]);
  });

  it("under an Idempotency-Key answers the first response again: one delivery, one message", async () => {
    const { auth, invoice } = await issued();
    const path = `/invoices/${invoice.id}/deliveries`;
    const options = {
      token: auth,
      json: {},
      headers: { "Idempotency-Key": "again-1" },
      env: { DELIVERIES: deliveriesQueued.binding },
    };
    const first = await (await call(path, options)).text();
    const second = await call(path, options);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await second.text()).toBe(first);
    expect(await storedDeliveries(invoice.id)).toHaveLength(2);
    expect(deliveriesQueued.messages).toHaveLength(1);
  });

  it("refuses, sending nothing: a bad recipient or format 422 at its pointer, a credit note before cancellation 409 invalid_state, no documents 409 conflict", async () => {
    const { auth, invoice } = await issued();
    const path = `/invoices/${invoice.id}/deliveries`;
    const post = (json: object) => call(path, { token: auth, json, env: { DELIVERIES: deliveriesQueued.binding } });
    await expectError(await post({ recipient: "not an address" }), 422, {
      code: "validation_failed",
      source: { pointer: "/recipient" },
    });
    await expectError(await post({ format: "xml" }), 422, {
      code: "validation_failed",
      source: { pointer: "/format" },
    });
    await expectError(await post({ document: "credit_note" }), 409, { code: "invalid_state" });
    await env.DB.prepare("UPDATE invoices SET buyer = NULL, seller = NULL WHERE id = ?").bind(invoice.id).run();
    await expectError(await post({}), 409, { code: "conflict" });
    await expectError(await call(`/invoices/${crypto.randomUUID()}/deliveries`, { token: auth, json: {} }), 404, {
      code: "not_found",
    });
    expect(await storedDeliveries(invoice.id)).toHaveLength(1);
    expect(deliveriesQueued.messages).toStrictEqual([]);
  });
});

describe("GET /invoice_deliveries", () => {
  it("lists every customer's deliveries for payments:read, newest first, by state and invoice", async () => {
    const a = await issued();
    const b = await issued();
    const office = await backOffice();
    const path = `/invoice_deliveries?invoice_id=${b.invoice.id}&state=pending`;
    const page = await expectJson(await call(path, { token: office }), 200, expect.anything());
    expect(page.data.map((d: any) => d.invoice_id)).toStrictEqual([b.invoice.id]);
    expect(page.meta.total_entries).toBe(1);
    const all = await expectJson(
      await call("/invoice_deliveries?state=pending&page_size=100", { token: office }),
      200,
      expect.anything(),
    );
    const mine = all.data
      .filter((d: any) => [a.invoice.id, b.invoice.id].includes(d.invoice_id))
      .map((d: any) => d.invoice_id);
    expect(mine).toStrictEqual([b.invoice.id, a.invoice.id]);
    await expectError(await call("/invoice_deliveries?state=lost", { token: office }), 400, {
      code: "invalid_parameter",
      source: { parameter: "state" },
    });
    const customer = await token({ scope: "invoices:read invoices:write" });
    await expectError(await call("/invoice_deliveries", { token: customer }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
  });
});

describe("the billing profile's invoice_format and invoice_delivery", () => {
  const profile = {
    legal_name: "A GmbH",
    street: "S 1",
    postcode: "10115",
    city: "Berlin",
    country_code: "DE",
    email: "a@a.example",
  };
  const put = async (auth: string, json: object) =>
    call("/customers/me/billing_profile", { token: auth, method: "PUT", json: { ...profile, ...json } });

  it("default to null and email (left out or null), take each value, and are shown after document_language", async () => {
    const auth = await token();
    const shown = async (json: object) => {
      const { data } = await expectJson(await put(auth, json), 200, expect.anything());
      return [Object.keys(data).slice(-4), data.invoice_format, data.invoice_delivery];
    };
    const order = ["invoice_format", "invoice_delivery", "consumer", "updated_at"];
    expect(await shown({})).toStrictEqual([order, null, "email"]);
    expect(await shown({ invoice_format: "cii", invoice_delivery: "none" })).toStrictEqual([order, "cii", "none"]);
    expect(await shown({ invoice_format: null, invoice_delivery: null })).toStrictEqual([order, null, "email"]);
    for (const format of ["pdf", "ubl"]) expect((await shown({ invoice_format: format }))[1]).toBe(format);
  });

  it("refuse anything else with 422 at the field", async () => {
    const auth = await token();
    await expectError(await put(auth, { invoice_format: "xrechnung" }), 422, {
      code: "validation_failed",
      source: { pointer: "/invoice_format" },
    });
    await expectError(await put(auth, { invoice_delivery: "post" }), 422, {
      code: "validation_failed",
      source: { pointer: "/invoice_delivery" },
    });
  });
});
