import type { Context } from "hono";
import { customerOf } from "../../auth/principal";
import { dunningOf, dunningRead, writeDunning, writeInvoiceDunning } from "../../db/dunning";
import { anyInvoiceRead, invoiceRead } from "../../db/invoices";
import type { InvoiceRow } from "../../db/schema";
import { businessTimeZone } from "../../domain/billing";
import { nextStepOn, parseDunningDays } from "../../domain/dunning";
import { dayIn } from "../../domain/time";
import type { AppEnv } from "../../env";
import { ApiError, found } from "../../errors";
import { database } from "../../http/database";
import { reply } from "../../http/reply";
import { loadingEndpoint, type Handler } from "../../http/route";
import type { DunningRow } from "../../schemas/dunning";
import { toDunning } from "../../schemas/dunning";
import * as routes from "./invoice-dunning.routes";

// docs/api.md part 18: an invoice's dunning, read by its customer, held and released by the accounts
// department (any customer's invoice).

const loadOwn = (c: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  invoice: invoiceRead(customerOf(c), params.id),
  dunning: dunningRead(params.id),
});

const getInvoiceDunning: Handler<typeof routes.getInvoiceDunning, typeof loadOwn> = (c, { loaded }) => {
  const invoice = found(loaded.invoice, "invoice");
  return reply(c, 200, { data: toDunning(dunningOf(invoice, loaded.dunning, parseDunningDays(c.env.DUNNING_DAYS))) });
};

const loadAny = (_c: Context<AppEnv>, { params }: { params: { id: string } }) => ({
  invoice: anyInvoiceRead(params.id),
  dunning: dunningRead(params.id),
});

/** The state a release returns to: ended if the steps had run out, active once overdue, else none. */
const releasedState = (row: DunningRow | undefined): InvoiceRow["dunningState"] =>
  row?.endedOn ? "ended" : row?.overdueOn || (row?.level ?? 0) > 0 ? "active" : "none";

/**
 * Holds or releases, in one batch with its event, guarded on the invoice and its dunning as read (the
 * run, a payment or another hold meanwhile: 409 conflict, nothing written). A hold that changes nothing
 * (held already, for the same reason) and a release of a dunning not held answer the dunning as it is.
 */
const putInvoiceDunning: Handler<typeof routes.putInvoiceDunning, typeof loadAny> = (c, { body, loaded }) => {
  const invoice = found(loaded.invoice, "invoice");
  const read = loaded.dunning;
  const days = parseDunningDays(c.env.DUNNING_DAYS);
  if (invoice.state === "paid" || invoice.state === "cancelled")
    throw ApiError.of("invalid_state", `The invoice is ${invoice.state}: its dunning is settled.`);
  if (body.hold && !body.reason)
    throw ApiError.of("validation_failed", "A hold needs its reason: 1 to 500 characters.", { pointer: "/reason" });
  const held = invoice.dunningState === "held";
  const unchanged = body.hold ? held && read?.heldReason === body.reason : !held;
  if (unchanged) return reply(c, 200, { data: toDunning(dunningOf(invoice, read, days)) });

  const at = new Date().toISOString();
  const today = dayIn(new Date(at), businessTimeZone(c.env));
  const base: DunningRow = read ?? {
    invoiceId: invoice.id,
    customerId: invoice.customerId,
    startOn: null,
    endedOn: null,
    level: 0,
    defaultSince: null,
    lastIssuedOn: null,
    restartOn: null,
    heldReason: null,
    lastRunOn: null,
    overdueOn: null,
    nextOn: null,
    updatedAt: at,
  };
  let next: DunningRow;
  let dunningState: InvoiceRow["dunningState"];
  if (body.hold) {
    next = { ...base, heldReason: body.reason!, nextOn: null, updatedAt: at };
    dunningState = "held";
  } else {
    // Continued from the level reached, the next step counted from the later of its usual start and today.
    dunningState = releasedState(read);
    const restartOn = base.restartOn && base.restartOn > today ? base.restartOn : today;
    const start = base.startOn ?? (invoice.paymentMethod === "bank_transfer" ? invoice.dueOn : null);
    const nextOn =
      dunningState === "active" && days !== "off"
        ? nextStepOn(
            {
              start,
              level: base.level,
              lastIssuedOn: base.lastIssuedOn,
              restartOn,
              held: false,
              settled: false,
              ended: false,
              lastRunOn: null,
              overdueSent: true,
            },
            days,
          )
        : null;
    next = { ...base, heldReason: null, restartOn, nextOn, updatedAt: at };
  }
  const orm = database(c).orm;
  const data = toDunning(dunningOf({ ...invoice, dunningState }, next, days));
  return {
    status: 200,
    writes: [writeDunning(orm, read, next), writeInvoiceDunning(orm, invoice, { dunningState })],
    body: { data },
    events: [{ type: body.hold ? "dunning.held" : "dunning.released", data, customerId: invoice.customerId }],
  };
};

/** This folder's routes, each with its handler (and load step), in the route table's order. */
export const invoiceDunningEndpoints = [
  loadingEndpoint(routes.getInvoiceDunning, loadOwn, getInvoiceDunning),
  loadingEndpoint(routes.putInvoiceDunning, loadAny, putInvoiceDunning),
];
