import { batchNamed, RequestDatabase } from "../db/client";
import {
  type DunnedInvoice,
  dunningOf,
  dunningStateOf,
  loadChunk,
  scanActive,
  scanNew,
  timelineOf,
  writeDunning,
  writeInvoiceDunning,
} from "../db/dunning";
import { insertReminder, reminderDelivery, reminderDocumentKey, reminderFileName } from "../db/reminders";
import type { EventRow, InvoiceRow } from "../db/schema";
import { businessTimeZone } from "../domain/billing";
import { type DunningDays, nextStepOn, parseDunningDays, runDayOf, runFor } from "../domain/dunning";
import { defaultSinceOf, reminderFigures } from "../domain/dunning-reminder";
import type { Buyer } from "../domain/einvoice";
import { newId } from "../domain/ids";
import type { SellerVariables } from "../domain/seller";
import type { Bindings } from "../env";
import { WriteConflict } from "../errors";
import { enqueueEvents } from "../events/enqueue";
import { type EventDraft, insertEvents } from "../events/outbox";
import type { DunningRow } from "../schemas/dunning";
import type { DunningMessage } from "./dunning-messages";
import { toDunning } from "../schemas/dunning";
import { toInvoice } from "../schemas/invoice";
import { type ReminderRow, toReminder } from "../schemas/reminder";

// docs/api.md part 18: the daily dunning run. The Cron Trigger (`30 5 * * *`) names the business day of
// its scheduledTime and queues a scan; a scan reads the candidates' ids in pages on an index (open
// invoices not yet overdue, then active ones whose next step is due) and queues them in chunks; a chunk
// takes each invoice's step for that day in one batch per invoice: its dunning row and state, the
// reminder with its event, charges and delivery, its PDF kept in R2 before. Every message stays within
// D1's 1000 queries per invocation, so a run covers any number of invoices. Idempotent: each invoice's
// batch is guarded on the last run day it read, and a run for a day no later than that changes nothing;
// a run that stops halfway leaves the rest to a retry of its message, or to the next day's run.

/** The daily cron of wrangler.jobs.toml [triggers]. */
export const DUNNING_CRON = "30 5 * * *";
/** Ids read per scan query, and queries per scan message before it hands on to the next. */
const SCAN_PAGE = 500;
const SCAN_PAGES = 8;
/** Invoices per chunk message: each costs a few queries, a render and an R2 put. */
const CHUNK = 25;
/** Invoices of a chunk worked on at once. */
const PARALLEL = 5;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify({ job: "dunning", ...fields }));

/** The cron: the run for the business day of `scheduledTime`, or a log line when DUNNING_DAYS is off. */
export async function startDunning(env: Bindings, scheduledTime: number): Promise<string | undefined> {
  const days = parseDunningDays(env.DUNNING_DAYS);
  const day = runDayOf(scheduledTime, businessTimeZone(env));
  if (days === "off") {
    log({ day, off: true, message: "DUNNING_DAYS is off: no dunning run" });
    return undefined;
  }
  await env.DUNNING.send({ kind: "dunning_scan", day, phase: "new", after: null });
  log({ day, started: true, days: days.join(",") });
  return day;
}

/** The dunning queue's consumer: scans and chunks, each message on its own. */
export async function consumeDunning(batch: MessageBatch<DunningMessage>, env: Bindings): Promise<void> {
  if (batch.queue.endsWith("-dlq")) {
    // What it did not do, the next day's run does (nothing is taken twice).
    for (const message of batch.messages) {
      console.error(JSON.stringify({ level: "error", job: "dunning_dead_letter", message: message.body }));
      message.ack();
    }
    return;
  }
  for (const message of batch.messages) {
    try {
      const body = message.body;
      if (body.kind === "dunning_scan") await scan(env, body);
      else await chunk(env, body.day, body.invoiceIds);
      message.ack();
    } catch (error) {
      log({ level: "error", message: message.body, error: String(error) });
      message.retry({ delaySeconds: 10 });
    }
  }
}

/** One scan message: up to SCAN_PAGES pages of candidates queued as chunks, then the next scan. */
async function scan(env: Bindings, { day, phase, after }: Extract<DunningMessage, { kind: "dunning_scan" }>) {
  const db = new RequestDatabase(env.DB, "first-primary");
  let key = after;
  for (let page = 0; page < SCAN_PAGES; page++) {
    const rows = await (phase === "new" ? scanNew : scanActive)(db.orm, day, key, SCAN_PAGE);
    const ids = rows.map(({ id }) => id);
    const messages: MessageSendRequest<DunningMessage>[] = [];
    for (let i = 0; i < ids.length; i += CHUNK)
      messages.push({ body: { kind: "dunning_chunk", day, invoiceIds: ids.slice(i, i + CHUNK) } });
    for (let i = 0; i < messages.length; i += 100) await env.DUNNING.sendBatch(messages.slice(i, i + 100));
    if (rows.length < SCAN_PAGE) {
      log({ day, phase, scanned: true });
      if (phase === "new") await env.DUNNING.send({ kind: "dunning_scan", day, phase: "active", after: null });
      return;
    }
    const last = rows.at(-1)!;
    key = [last.on, last.id];
  }
  await env.DUNNING.send({ kind: "dunning_scan", day, phase, after: key });
}

/** What one invoice's step did. */
type Done = "nothing" | "stepped" | "conflict";

/** One chunk: each invoice's step for `day`. */
async function chunk(env: Bindings, day: string, invoiceIds: string[]): Promise<Record<Done, number>> {
  const days = parseDunningDays(env.DUNNING_DAYS);
  const counts: Record<Done, number> = { nothing: 0, stepped: 0, conflict: 0 };
  if (days === "off") return counts;
  const db = new RequestDatabase(env.DB, "first-primary");
  const loaded = await loadChunk(db.orm, invoiceIds);
  for (let i = 0; i < loaded.length; i += PARALLEL) {
    const done = await Promise.all(loaded.slice(i, i + PARALLEL).map((one) => dun(env, db, one, day, days)));
    for (const d of done) counts[d]++;
  }
  log({ day, invoices: loaded.length, ...counts });
  return counts;
}

/** The seller's CREDITOR_* variables, all the renderer needs of the env. */
const sellerVariables = (env: Bindings): SellerVariables =>
  Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("CREDITOR_"))) as SellerVariables;

/** Takes the invoice's step for `day` (docs/api.md part 18): one batch, or nothing. */
async function dun(env: Bindings, db: RequestDatabase, loaded: DunnedInvoice, day: string, days: DunningDays) {
  const { invoice, dunning: read, profile } = loaded;
  // Paid, cancelled, held, ended: not the run's (an open one a return reopened is, at its level).
  if (invoice.state !== "open" || invoice.dunningState === "held" || invoice.dunningState === "ended")
    return "nothing" as const;
  const zone = businessTimeZone(env);
  const state = dunningStateOf(loaded, zone);
  if (state.settled || (state.lastRunOn !== null && day <= state.lastRunOn)) return "nothing" as const;
  const outcome = runFor(state, day, days);
  const at = new Date().toISOString();
  const events: EventDraft[] = [];
  const writes = [];
  let reminder: ReminderRow | undefined;
  let charges: number | undefined;
  const next: DunningRow = {
    invoiceId: invoice.id,
    customerId: invoice.customerId,
    startOn: state.start,
    endedOn: read?.endedOn ?? null,
    level: state.level,
    defaultSince: read?.defaultSince ?? null,
    lastIssuedOn: state.lastIssuedOn,
    restartOn: state.restartOn,
    heldReason: read?.heldReason ?? null,
    lastRunOn: day,
    overdueOn: read?.overdueOn ?? null,
    nextOn: null,
    updatedAt: read?.updatedAt ?? at,
  };
  if (outcome.overdue) {
    next.overdueOn = day;
    events.push({ type: "invoice.overdue", data: toInvoice(invoice), customerId: invoice.customerId });
  }
  let pdf: Uint8Array | undefined;
  if (outcome.step?.kind === "reminder") {
    const { level } = outcome.step;
    const buyer = JSON.parse(invoice.buyer ?? "{}") as Partial<Buyer>;
    const figures = reminderFigures({
      level,
      issuedOn: day,
      language: buyer.documentLanguage ?? "de",
      consumer: profile?.consumer ?? false,
      defaultSince: level === 1 ? null : next.defaultSince,
      timeline: timelineOf(invoice, loaded.payments, zone),
    });
    reminder = {
      id: newId(),
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      invoiceNumber: invoice.number,
      level,
      title: figures.title,
      issuedOn: day,
      payBy: figures.payBy,
      defaultSince: figures.defaultSince,
      openAmount: figures.openCents,
      interestPercent: figures.interestPercent,
      interestAmount: figures.interestCents,
      feeAmount: figures.feeCents,
      totalAmount: figures.totalCents,
      createdAt: at,
    };
    Object.assign(next, { level, lastIssuedOn: day, ...(level === 1 ? { defaultSince: defaultSinceOf(day) } : {}) });
    if (level >= 2) charges = figures.interestCents + figures.feeCents;
    pdf = await env.RENDERER.renderReminder({ invoice, reminder: figures, seller: sellerVariables(env) });
  }
  const ended = outcome.step?.kind === "end";
  if (ended) next.endedOn = day;
  const after = {
    ...state,
    level: next.level,
    lastIssuedOn: next.lastIssuedOn,
    lastRunOn: day,
    overdueSent: next.overdueOn !== null,
    ended,
  };
  next.nextOn = ended ? null : nextStepOn(after, days);
  const changed = outcome.overdue || outcome.step !== null;
  if (changed) next.updatedAt = at;
  const dunningState: InvoiceRow["dunningState"] = ended
    ? "ended"
    : next.overdueOn !== null || next.level > 0
      ? "active"
      : "none";
  const invoiceAfter = { ...invoice, dunningState, chargesAmount: charges ?? invoice.chargesAmount };
  if (reminder) events.push({ type: "reminder.created", data: toReminder(reminder), customerId: invoice.customerId });
  if (ended)
    events.push({
      type: "dunning.ended",
      data: toDunning(dunningOf(invoiceAfter, next, days)),
      customerId: invoice.customerId,
    });

  writes.push(writeDunning(db.orm, read, next));
  if (dunningState !== invoice.dunningState || charges !== undefined)
    writes.push(
      writeInvoiceDunning(db.orm, invoice, {
        dunningState,
        ...(charges === undefined ? {} : { chargesAmount: charges }),
      }),
    );
  const deliveryId = newId();
  if (reminder) writes.push(insertReminder(db.orm, reminder), reminderDelivery(db.orm, reminder, deliveryId));

  // The PDF is kept before the batch that makes its reminder: a reminder never lacks its document.
  const key = reminder ? reminderDocumentKey(reminder.id) : undefined;
  if (reminder && pdf && key)
    await env.DOCUMENTS.put(key, pdf, {
      httpMetadata: {
        contentType: "application/pdf",
        contentDisposition: `attachment; filename="${reminderFileName(reminder)}"`,
      },
      customMetadata: { owner: invoice.customerId },
    });
  const inserted = insertEvents(db.orm, invoice.customerId, events, Date.parse(at));
  try {
    const results = await batchNamed(db.orm, { writes: writes as never, events: inserted.inserts as never });
    const stored = (results.events as EventRow[][]).map((rows) => rows[0]!);
    await enqueueEvents(env.EVENTS, stored);
  } catch (error) {
    if (key) await env.DOCUMENTS.delete(key).catch(() => undefined);
    // Another run (or a hold, or a payment) changed the invoice meanwhile: its step is theirs, or the next run's.
    if (error instanceof WriteConflict) return "conflict" as const;
    throw error;
  }
  if (reminder)
    await env.DELIVERIES.send({ deliveryId }).catch((error: unknown) =>
      log({ level: "error", error: "delivery_not_queued", delivery_id: deliveryId, cause: String(error) }),
    );
  return changed ? ("stepped" as const) : ("nothing" as const);
}
