import type { Context } from "hono";
import { customerOf, principalOf } from "../../auth/principal";
import { listRemindersOf, reminderDocumentKey, reminderRead } from "../../db/reminders";
import type { AppEnv } from "../../env";
import { notFound } from "../../errors";
import { database } from "../../http/database";
import { servedKept } from "../../http/kept-document";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toReminder } from "../../schemas/reminder";
import * as routes from "./reminders.routes";

// docs/api.md part 18: an invoice's reminders, and a reminder's letter as the run kept it in R2.

const listInvoiceReminders: Handler<typeof routes.listInvoiceReminders> = async (c, { query, params }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await listRemindersOf(database(c), customerOf(c), params.id, request);
  if (total === undefined) throw notFound("invoice");
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toReminder), total, edges));
};

const loadReminder = (_c: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  reminder: reminderRead(params.id),
});

/**
 * The PDF kept when the reminder was made, the same bytes for ever: to a token of its invoice's customer
 * with invoices:read, or to the back office's payments:read. Anyone else's reminder is not found.
 */
const getReminderDocument: Handler<typeof routes.getReminderDocument, typeof loadReminder> = async (c, { loaded }) => {
  const { reminder } = loaded;
  const principal = principalOf(c);
  // The access rule let in a customer's token with invoices:read, or the back office's (no customer) with
  // payments:read: the customer's sees its own reminders only, the back office's every one.
  if (!reminder || (principal.customerId !== null && reminder.customerId !== principal.customerId))
    throw notFound("reminder");
  const served = await servedKept(c, { key: reminderDocumentKey(reminder.id), owner: reminder.customerId });
  if (!served) throw new Error(`reminder ${reminder.id} has no kept document`);
  return served;
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const reminderEndpoints = [
  endpoint(routes.listInvoiceReminders, listInvoiceReminders),
  loadingEndpoint(routes.getReminderDocument, loadReminder, getReminderDocument),
];
