import * as z from "zod/mini";
import { invoiceLifecycle } from "../../domain/invoices";
import { NO_BODY } from "../../http/request-body";
import { NO_QUERY } from "../../http/request-query";
import type { RouteSpec } from "../../http/route";
import { Dunning, PutDunning } from "../../schemas/dunning";
import { dataOf } from "../../schemas/envelopes";
import { pathId } from "../../schemas/formats";

// docs/api.md part 18: an invoice's dunning, and the accounts department's hold and release. Answered by
// the jobs Worker (`worker: "jobs"`), which runs the dunning.

const TAG = "Invoices";
const params = z.object({ id: pathId(invoiceLifecycle.noun) });
const DunningData = dataOf("DunningData", Dunning);

export const getInvoiceDunning = {
  method: "get",
  path: "/invoices/{id}/dunning",
  operationId: "getInvoiceDunning",
  tag: TAG,
  worker: "jobs",
  access: { scope: "invoices:read", tenant: true },
  body: NO_BODY,
  query: NO_QUERY,
  params,
  docs: {
    summary: "Read how far an overdue invoice is chased",
    description:
      "The invoice's dunning: `state` none (not yet overdue), active (overdue, from the day after due_on, at any " +
      "level), held (a person stopped it), ended (the steps ran out: a person takes over) or settled (paid or " +
      "cancelled); the `level` of the last reminder (0 before the first), the day default began, the day the next " +
      "step is due, and the interest and fees claimed so far.",
    success: "The dunning.",
  },
  success: { status: 200, schema: DunningData },
} satisfies RouteSpec;

export const putInvoiceDunning = {
  method: "put",
  path: "/invoices/{id}/dunning",
  operationId: "putInvoiceDunning",
  tag: TAG,
  worker: "jobs",
  access: { scope: "payments:write", tenant: false },
  body: PutDunning,
  query: NO_QUERY,
  params,
  errors: ["invalid_state"],
  docs: {
    summary: "Hold an invoice's dunning (a dispute), or release it",
    description:
      "`{hold: true, reason}` stops every step of the invoice's dunning until it is released (reason 1-500 " +
      "characters, required); `{hold: false}` releases it: it continues from the level reached, the next step " +
      "counted from the release day. A hold stops steps, not default: interest counts the held days too. Events " +
      "dunning.held and dunning.released; a hold or release that changes nothing emits none. A paid or cancelled " +
      "invoice answers 409 invalid_state.",
    success: "The dunning.",
  },
  success: { status: 200, schema: DunningData },
} satisfies RouteSpec;

/** This folder's routes, in the route table's order (src/app.ts: the jobs Worker binds their handlers). */
export const invoiceDunningRoutes = [getInvoiceDunning, putInvoiceDunning];
