import type { Context } from "hono";
import { customerOf } from "../../auth/principal";
import { profileRead } from "../../db/billing-profiles";
import { whyNoDocument } from "../../db/e-invoices";
import { listAllDeliveries, listDeliveriesOf } from "../../db/invoice-delivery-lists";
import { invoiceRead } from "../../db/invoices";
import { invoiceDeliveries, type InvoiceDeliveryRow } from "../../db/schema";
import { formatFor } from "../../domain/deliveries";
import type { Buyer } from "../../domain/einvoice";
import { newId } from "../../domain/ids";
import type { AppEnv } from "../../env";
import { ApiError, found, notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, loadingEndpoint, type Handler } from "../../http/route";
import { pageEnvelope, singlePageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toInvoiceDelivery } from "../../schemas/invoice-delivery";
import * as routes from "./invoice-deliveries.routes";

// docs/api.md part 17: an invoice's deliveries, a delivery asked for, and the accounts department's list.

const listInvoiceDeliveries: Handler<typeof routes.listInvoiceDeliveries> = async (c, { query, params }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await listDeliveriesOf(database(c), customerOf(c), params.id, request);
  if (total === undefined) throw notFound("invoice");
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toInvoiceDelivery), total, edges));
};

/** The invoice and the billing profile it is sent by, in one round trip. */
const loadInvoice = (c: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  invoice: invoiceRead(customerOf(c), params.id),
  profile: profileRead(customerOf(c)),
});

/**
 * Sends the invoice's document (or its credit note) again: a pending delivery, written with the
 * request's stored response, and handed to the deliveries queue after it (the per-minute cron sends
 * what that misses). A refused request writes and sends nothing.
 */
const createInvoiceDelivery: Handler<typeof routes.createInvoiceDelivery, typeof loadInvoice> = async (
  c,
  { body, loaded },
) => {
  const invoice = found(loaded.invoice, "invoice");
  const document = body.document ?? "invoice";
  if (document === "credit_note" && invoice.state !== "cancelled")
    throw ApiError.of("invalid_state", `The invoice is ${invoice.state}; only a cancelled invoice has a credit note.`);
  const missing = whyNoDocument(invoice);
  if (missing) throw ApiError.of("conflict", `Invoice ${invoice.number} has no e-invoice to send: ${missing}.`);
  const buyer = JSON.parse(invoice.buyer!) as Partial<Buyer>;
  const profile = loaded.profile;
  const recipient = body.recipient ?? profile?.email ?? buyer.email;
  if (!recipient)
    throw ApiError.of("conflict", "The billing profile has no e-mail address: name a recipient, or PUT one first.");
  const at = new Date().toISOString();
  const row: InvoiceDeliveryRow = {
    id: newId(),
    invoiceId: invoice.id,
    customerId: invoice.customerId,
    document,
    reminderId: null,
    channel: "email",
    recipient,
    format:
      body.format ?? formatFor(profile?.invoiceFormat ?? null, profile ? profile.leitwegId : (buyer.leitwegId ?? null)),
    state: "pending",
    attempts: 0,
    messageId: null,
    error: null,
    createdAt: at,
    sentAt: null,
    updatedAt: at,
    cause: null,
    attemptAfter: at,
  };
  const { orm } = database(c);
  // Once the batch has stored the delivery, its message for the jobs Worker.
  const queued = () =>
    c.executionCtx.waitUntil(
      c.env.DELIVERIES.send({ deliveryId: row.id }).catch((error: unknown) =>
        console.error(
          JSON.stringify({ level: "error", error: "delivery_not_queued", delivery_id: row.id, cause: String(error) }),
        ),
      ),
    );
  return {
    status: 201,
    writes: [orm.insert(invoiceDeliveries).values(row)],
    body: singlePageEnvelope(c, [toInvoiceDelivery(row)]),
    after: { stored: queued },
  };
};

const listAllInvoiceDeliveries: Handler<typeof routes.listAllInvoiceDeliveries> = async (c, { query }) => {
  const request = await pageRequest(c, query);
  const filters = { state: query.state, invoiceId: query.invoice_id };
  const { rows, edges, total } = await listAllDeliveries(database(c), filters, request);
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toInvoiceDelivery), total ?? 0, edges));
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const invoiceDeliveryEndpoints = [
  endpoint(routes.listInvoiceDeliveries, listInvoiceDeliveries),
  loadingEndpoint(routes.createInvoiceDelivery, loadInvoice, createInvoiceDelivery),
  endpoint(routes.listAllInvoiceDeliveries, listAllInvoiceDeliveries),
];
