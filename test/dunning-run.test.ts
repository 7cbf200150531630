import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { addDays } from "../src/domain/time";
import type { DunningMessage } from "../src/jobs/dunning-messages";
import { INTERFACE_FIELDS } from "./interface-fields";
import { call, customerOfToken, expectError, expectJson, ISO_MS, token, UUID } from "./support/api";
import { deliveriesQueued, drainDeliveries, RecordingEmail, storedDeliveries } from "./support/deliveries";
import { naiveInterestCents } from "./support/naive-interest";
import {
  backOffice,
  businessToday,
  collectableInvoice,
  credit,
  earliestDate,
  statementFile,
  uploadFile,
} from "./support/payments";
import { consumeDunning, dunningQueued, overdueInvoice, runDunning, storedReminders } from "./support/dunning";
import { drainStatements, queued } from "./support/queue";

// docs/api.md part 18: the daily dunning run, driven through the jobs Worker's cron with a chosen
// scheduledTime and its queue consumed here, and the endpoints that read and hold it.

const runDay = runDunning;

const eventsOf = (invoiceId: string) =>
  queued
    .take()
    .flatMap((m) => (m.kind === "event" ? [m.event] : []))
    .filter(
      (e) =>
        (e.data as { id?: string; invoice_id?: string }).id === invoiceId ||
        (e.data as { invoice_id?: string }).invoice_id === invoiceId,
    )
    .map((e) => e.type);

const overdue = overdueInvoice;

const dunningOf = async (auth: string, id: string) =>
  ((await (await call(`/invoices/${id}/dunning`, { token: auth })).json()) as { data: Record<string, unknown> }).data;

beforeEach(() => {
  queued.take();
  deliveriesQueued.take();
  dunningQueued.take();
});

describe("the daily run, for the business day of its scheduledTime", () => {
  it("overdue the day after due_on, then levels 1, 2, 3 and the end, each once, with its PDF and e-mail", async () => {
    const { auth, invoice, due, gross } = await overdue();
    await runDay(due);
    expect(eventsOf(invoice.id)).toStrictEqual([]);
    expect(await dunningOf(auth, invoice.id)).toMatchObject({ state: "none", level: 0, next_step_on: addDays(due, 7) });

    await runDay(addDays(due, 1));
    expect(eventsOf(invoice.id)).toStrictEqual(["invoice.overdue"]);
    expect(await dunningOf(auth, invoice.id)).toStrictEqual({
      type: "dunning",
      invoice_id: invoice.id,
      state: "active",
      level: 0,
      default_since: null,
      next_step_on: addDays(due, 7),
      held_reason: null,
      charges_amount: "0.00",
      updated_at: expect.stringMatching(ISO_MS),
    });

    // Level 1: a payment reminder, no charges; its delivery a PDF whatever the profile's format.
    const first = addDays(due, 7);
    await runDay(first);
    expect(eventsOf(invoice.id)).toStrictEqual(["reminder.created"]);
    const list = await expectJson(
      await call(`/invoices/${invoice.id}/reminders`, { token: auth }),
      200,
      expect.anything(),
    );
    const [m1] = list.data;
    expect(Object.keys(m1)).toStrictEqual([...INTERFACE_FIELDS.reminder]);
    expect(m1).toStrictEqual({
      id: expect.stringMatching(UUID),
      type: "reminder",
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      level: 1,
      title: "Zahlungserinnerung",
      issued_on: first,
      pay_by: addDays(first, 10),
      default_since: null,
      open_amount: invoice.gross_amount,
      interest_percent: null,
      interest_amount: "0.00",
      fee_amount: "0.00",
      total_amount: invoice.gross_amount,
      created_at: expect.stringMatching(ISO_MS),
    });
    expect(list.meta.total_entries).toBe(1);
    const deliveries = await storedDeliveries(invoice.id);
    const reminderDelivery = deliveries.find((d) => d.document === "reminder")!;
    expect(reminderDelivery).toMatchObject({
      reminder_id: m1.id,
      format: "pdf",
      state: "pending",
      recipient: "rechnung@mueller-soehne.example",
      cause: "reminder:1",
    });
    expect(deliveriesQueued.messages).toStrictEqual([{ deliveryId: reminderDelivery.id }]);

    // Its document: the PDF kept in R2, the e-mail's one attachment.
    const document = await call(`/reminders/${m1.id}/document`, { token: auth });
    expect([document.status, document.headers.get("Content-Type")]).toStrictEqual([200, "application/pdf"]);
    expect(document.headers.get("Content-Disposition")).toBe(`attachment; filename="${invoice.number}-M1.pdf"`);
    const pdf = new Uint8Array(await document.arrayBuffer());
    expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe("%PDF-");
    const email = new RecordingEmail();
    await drainDeliveries({ EMAIL: email.binding });
    expect(email.sent).toHaveLength(1);
    const [sent] = email.sent as unknown as {
      to: string;
      subject: string;
      text: string;
      attachments: { filename: string; type: string; content: Uint8Array | ArrayBuffer }[];
      headers: Record<string, string>;
    }[];
    expect(sent!.to).toBe("rechnung@mueller-soehne.example");
    expect(sent!.subject).toBe(`Zahlungserinnerung zur Rechnung ${invoice.number} der ${env.CREDITOR_NAME}`);
    expect(sent!.text).toContain(`${invoice.number}-M1.pdf`);
    expect(sent!.attachments).toHaveLength(1);
    expect(sent!.attachments[0]!.filename).toBe(`${invoice.number}-M1.pdf`);
    expect(sent!.attachments[0]!.type).toBe("application/pdf");
    expect(new Uint8Array(sent!.attachments[0]!.content as ArrayBuffer)).toStrictEqual(pdf);
    expect(sent!.headers["X-Invoice-Number"]).toBe(invoice.number);
    expect(eventsOf(invoice.id)).toStrictEqual(["invoice_delivery.sent"]);

    // Level 2: interest from the day after level 1 and the fee of a business buyer.
    const second = addDays(first, 14);
    await runDay(second);
    const since = addDays(first, 1);
    const interest = naiveInterestCents({ openCents: gross, changes: [] }, since, second, false);
    expect(eventsOf(invoice.id)).toStrictEqual(["reminder.created"]);
    const [, m2] = await storedReminders(invoice.id);
    expect(m2).toMatchObject({
      level: 2,
      title: "1. Mahnung",
      default_since: since,
      interest_amount: interest,
      fee_amount: 4000,
      total_amount: gross + interest + 4000,
    });
    const { results } = await env.DB.prepare("SELECT charges_amount, dunning_state FROM invoices WHERE id = ?")
      .bind(invoice.id)
      .all();
    expect(results).toStrictEqual([{ charges_amount: interest + 4000, dunning_state: "active" }]);

    const third = addDays(second, 14);
    await runDay(third);
    const [, , m3] = await storedReminders(invoice.id);
    const interest3 = naiveInterestCents({ openCents: gross, changes: [] }, since, third, false);
    expect(m3).toMatchObject({ level: 3, title: "Letzte Mahnung", interest_amount: interest3, fee_amount: 4000 });

    expect(eventsOf(invoice.id)).toStrictEqual(["reminder.created"]);
    await runDay(addDays(third, 13));
    expect(eventsOf(invoice.id)).toStrictEqual([]);
    await runDay(addDays(third, 14));
    expect(eventsOf(invoice.id)).toStrictEqual(["dunning.ended"]);
    expect(await dunningOf(auth, invoice.id)).toMatchObject({
      state: "ended",
      level: 3,
      next_step_on: null,
      charges_amount: ((interest3 + 4000) / 100).toFixed(2),
    });
    await runDay(addDays(third, 60));
    expect(eventsOf(invoice.id)).toStrictEqual([]);
    expect(await storedReminders(invoice.id)).toHaveLength(3);
  });

  it("takes one level a run, never skipping one; a day repeated or earlier changes nothing", async () => {
    const { invoice, due } = await overdue({ consumer: true, language: "en" });
    const late = addDays(due, 40);
    await runDay(late);
    expect(eventsOf(invoice.id)).toStrictEqual(["invoice.overdue", "reminder.created"]);
    await runDay(late);
    await runDay(addDays(late, -5));
    expect(eventsOf(invoice.id)).toStrictEqual([]);
    await runDay(addDays(late, 1));
    expect(eventsOf(invoice.id)).toStrictEqual([]);
    await runDay(addDays(late, 14));
    const rows = await storedReminders(invoice.id);
    expect(rows.map((r) => [r.level, r.title, r.fee_amount, r.interest_percent])).toStrictEqual([
      [1, "Payment reminder", 0, null],
      [2, "Reminder", 0, "6.27"],
    ]);
  });

  it("a run that stopped halfway is finished by the same day's rerun, and a chunk delivered twice makes nothing twice", async () => {
    const invoices = [];
    for (let i = 0; i < 3; i++) invoices.push(await overdue());
    const day = addDays(invoices.at(-1)!.due, 7);
    // All chunks of the first run are lost: nothing is made; the rerun does each invoice's step once.
    await runDay(day, {}, 1_000);
    for (const { invoice } of invoices) expect(await storedReminders(invoice.id)).toHaveLength(0);
    await runDay(day);
    await runDay(day);
    for (const { invoice } of invoices)
      expect((await storedReminders(invoice.id)).map((r) => r.level)).toStrictEqual([1]);
    const chunk: DunningMessage = {
      kind: "dunning_chunk",
      day: addDays(day, 14),
      invoiceIds: invoices.map((x) => x.invoice.id),
    };
    for (let i = 0; i < 2; i++) await consumeDunning([chunk]);
    for (const { invoice } of invoices)
      expect((await storedReminders(invoice.id)).map((r) => r.level)).toStrictEqual([1, 2]);
  });

  it("DUNNING_DAYS off logs and queues nothing", async () => {
    const { invoice, due } = await overdue();
    await runDay(addDays(due, 30), { DUNNING_DAYS: "off" });
    expect(eventsOf(invoice.id)).toStrictEqual([]);
    expect(await storedReminders(invoice.id)).toHaveLength(0);
  });

  it("a paid invoice is settled: no step, whatever the day", async () => {
    const { auth, invoice, due } = await overdue();
    expect((await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" })).status).toBe(200);
    await runDay(addDays(due, 30));
    expect(await storedReminders(invoice.id)).toHaveLength(0);
    expect(await dunningOf(auth, invoice.id)).toMatchObject({ state: "settled", next_step_on: null });
  });
});

describe("PUT /invoices/{id}/dunning: hold and release", () => {
  it("a hold stops every step until released, with its events; a release continues from the level reached", async () => {
    const { auth, invoice, due } = await overdue();
    const office = await backOffice();
    await runDay(addDays(due, 7));
    queued.take();
    const held = await expectJson(
      await call(`/invoices/${invoice.id}/dunning`, {
        token: office,
        method: "PUT",
        json: { hold: true, reason: "Disputed: two cards missing." },
      }),
      200,
      expect.anything(),
    );
    expect(held.data).toMatchObject({
      state: "held",
      level: 1,
      next_step_on: null,
      held_reason: "Disputed: two cards missing.",
    });
    expect(eventsOf(invoice.id)).toStrictEqual(["dunning.held"]);
    expect(await dunningOf(auth, invoice.id)).toStrictEqual(held.data);
    await runDay(addDays(due, 40));
    expect(await storedReminders(invoice.id)).toHaveLength(1);

    const released = await expectJson(
      await call(`/invoices/${invoice.id}/dunning`, { token: office, method: "PUT", json: { hold: false } }),
      200,
      expect.anything(),
    );
    expect(released.data).toMatchObject({ state: "active", level: 1, held_reason: null });
    expect(eventsOf(invoice.id)).toStrictEqual(["dunning.released"]);
    // Releasing again changes nothing and emits nothing.
    await call(`/invoices/${invoice.id}/dunning`, { token: office, method: "PUT", json: { hold: false } });
    expect(eventsOf(invoice.id)).toStrictEqual([]);
    await runDay(addDays(due, 41));
    expect((await storedReminders(invoice.id)).map((r) => r.level)).toStrictEqual([1, 2]);
  });

  it("a hold needs its reason (422); a paid invoice answers 409 invalid_state; a customer token may not hold", async () => {
    const { auth, invoice } = await overdue();
    const office = await backOffice();
    const path = `/invoices/${invoice.id}/dunning`;
    await expectError(await call(path, { token: office, method: "PUT", json: { hold: true } }), 422, {
      code: "validation_failed",
      source: { pointer: "/reason" },
    });
    await expectError(
      await call(path, { token: office, method: "PUT", json: { hold: true, reason: "x".repeat(501) } }),
      422,
      { code: "validation_failed", source: { pointer: "/reason" } },
    );
    const customer = await token({ customer_id: customerOfToken(auth), scope: "invoices:read invoices:write" });
    await expectError(await call(path, { token: customer, method: "PUT", json: { hold: true, reason: "no" } }), 403, {
      code: "forbidden",
      source: { header: "Authorization" },
    });
    await call(`/invoices/${invoice.id}/pay`, { token: auth, method: "POST" });
    await expectError(await call(path, { token: office, method: "PUT", json: { hold: true, reason: "late" } }), 409, {
      code: "invalid_state",
    });
  });
});

describe("another customer's invoice and reminder are not found", () => {
  it("404 for its dunning, its reminders and its reminder's document; the back office reads the document", async () => {
    const { invoice, due } = await overdue();
    await runDay(addDays(due, 7));
    const [reminder] = await storedReminders(invoice.id);
    const other = await token({ scope: "invoices:read" });
    await expectError(await call(`/invoices/${invoice.id}/dunning`, { token: other }), 404, { code: "not_found" });
    await expectError(await call(`/invoices/${invoice.id}/reminders`, { token: other }), 404, { code: "not_found" });
    await expectError(await call(`/reminders/${reminder!.id}/document`, { token: other }), 404, { code: "not_found" });
    const office = await token({ customer_id: undefined, scope: "payments:read" });
    expect((await call(`/reminders/${reminder!.id}/document`, { token: office })).status).toBe(200);
  });
});

describe("a direct debit is the seller's to collect", () => {
  it("is dunned only once a return other than AM04 leaves it open, counted from the return's day", async () => {
    const auth = await token();
    const debited = await collectableInvoice(auth);
    // Another, whose debit comes back AM04 (insufficient funds): collectable again, never dunned.
    const other = await token();
    const insufficient = await collectableInvoice(other);
    const today = businessToday();
    const made = await call("/direct_debit_collections", { token: auth, json: { collection_date: earliestDate() } });
    expect(made.status).toBe(201);
    await runDay(addDays(today, 30));
    expect(await storedReminders(debited.id)).toHaveLength(0);
    expect(await dunningOf(auth, debited.id)).toMatchObject({ state: "none", level: 0, next_step_on: null });

    // Settled, then returned (MD06: the debtor disputes it): open again and not collectable.
    const returned = { ...credit(debited.gross_amount, { endToEndId: debited.number, returnReason: "MD06" }) };
    for (const entry of [
      credit(debited.gross_amount, { endToEndId: debited.number }),
      { ...returned, creditDebit: "debit" as const },
    ])
      expect((await uploadFile(auth, statementFile([entry]))).status).toBe(202);
    const am04 = credit(insufficient.gross_amount, { endToEndId: insufficient.number, returnReason: "AM04" });
    for (const entry of [
      credit(insufficient.gross_amount, { endToEndId: insufficient.number }),
      { ...am04, creditDebit: "debit" as const },
    ])
      expect((await uploadFile(other, statementFile([entry]))).status).toBe(202);
    await drainStatements();
    queued.take();
    await runDay(today);
    expect(eventsOf(debited.id)).toStrictEqual([]);
    await runDay(addDays(today, 1));
    expect(eventsOf(debited.id)).toStrictEqual(["invoice.overdue"]);
    await runDay(addDays(today, 7));
    expect((await storedReminders(debited.id)).map((r) => [r.level, r.issued_on])).toStrictEqual([
      [1, addDays(today, 7)],
    ]);
    expect(await storedReminders(insufficient.id)).toHaveLength(0);
    expect(await dunningOf(other, insufficient.id)).toMatchObject({ state: "none", next_step_on: null });
  });
});
