import * as z from "zod/mini";
import { invoiceLifecycle } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { listQuery } from "../../pagination/query";
import { listOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";
import { Reminder } from "../../schemas/reminder";

// docs/api.md part 18: an invoice's reminders and a reminder's letter. Answered by the jobs Worker
// (`worker: "jobs"`), which makes them.

const TAG = "Invoices";
const ReminderList = listOf("ReminderList", Reminder);

export const listInvoiceReminders = {
  method: "get",
  path: "/invoices/{id}/reminders",
  operationId: "listInvoiceReminders",
  tag: TAG,
  worker: "jobs",
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: listQuery({}),
  params: z.object({ id: pathId(invoiceLifecycle.noun) }),
  docs: {
    summary: "List an overdue invoice's reminders, oldest first",
    description:
      "Each reminder the daily dunning run made: level 1 (Zahlungserinnerung / Payment reminder, no charges), 2 " +
      "(1. Mahnung / Reminder: default interest and, for a business, the EUR 40.00 flat fee) and 3 (Letzte " +
      "Mahnung / Final reminder), with the sum each asks for.",
    success: "A page of reminders.",
  },
  success: { status: 200, schema: ReminderList },
} satisfies RouteSpec;

export const getReminderDocument = {
  method: "get",
  path: "/reminders/{id}/document",
  operationId: "getReminderDocument",
  tag: TAG,
  worker: "jobs",
  access: { scope: "invoices:read", tenant: true, acrossCustomers: "payments:read" },
  body: NO_BODY,
  query: NO_QUERY,
  params: z.object({ id: pathId("reminder") }),
  docs: {
    summary: "Download a reminder's letter (PDF)",
    description:
      "The reminder as sent: a PDF/A-2b in the invoice's document language with the seller's letterhead, the " +
      "amounts, for levels 2 and 3 the interest (rate, period, § 288 BGB) and the fee, the total, pay_by and a " +
      "GiroCode for the total. The same bytes for ever (strong ETag; If-None-Match answers 304). A token with " +
      "invoices:read reads its customer's reminders, one with payments:read every customer's.",
    success: "The PDF, named <invoice number>-M<level>.pdf.",
  },
  success: {
    status: 200,
    schema: z.string(),
    mediaType: "application/pdf",
    headers: { "Cache-Control": "private" },
    conditional: true,
  },
} satisfies RouteSpec;

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const reminderRoutes = [listInvoiceReminders, getReminderDocument];
