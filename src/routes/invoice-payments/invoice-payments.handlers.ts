import { customerOf } from "../../auth/principal";
import { findInvoice } from "../../db/invoices";
import { listPayments } from "../../db/payments";
import { found, notFound } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { endpoint, type Handler } from "../../http/route";
import { pageEnvelope } from "../../pagination/envelope";
import { pageRequest } from "../../pagination/query";
import { toInvoiceBalance, toPayment } from "../../schemas/payment";
import * as routes from "./invoice-payments.routes";

const listInvoicePayments: Handler<typeof routes.listInvoicePayments> = async (c, { query, params }) => {
  const request = await pageRequest(c, query);
  const { rows, edges, total } = await listPayments(database(c), customerOf(c), params.id, request);
  if (total === undefined) throw notFound("invoice");
  return reply(c, 200, await pageEnvelope(c, request, rows.map(toPayment), total, edges));
};

const getInvoiceBalance: Handler<typeof routes.getInvoiceBalance> = async (c, { params }) =>
  reply(c, 200, { data: toInvoiceBalance(found(await findInvoice(database(c), customerOf(c), params.id), "invoice")) });

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const invoicePaymentEndpoints = [
  endpoint(routes.listInvoicePayments, listInvoicePayments),
  endpoint(routes.getInvoiceBalance, getInvoiceBalance),
];
