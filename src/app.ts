// HonoBase with LinearRouter alone: 2 KiB of gzip smaller than hono's default SmartRouter, and it
// compiles nothing when routes are added (PatternRouter, hono/tiny, builds a RegExp per route at
// start-up, which every cold isolate paid for). With a few dozen routes a match costs microseconds.
import { HonoBase } from "hono/hono-base";
import { LinearRouter } from "hono/router/linear-router";
import type { AppEnv } from "./env";
import { cors } from "./http/cors";
import { onError, onNotFound } from "./http/error-response";
import { mount } from "./http/mount";
import { requestContext } from "./http/request-context";
import type { Endpoint } from "./http/route";
import { billingProfileEndpoints } from "./routes/billing-profile";
import { cardOrderEndpoints } from "./routes/card-orders";
import { entryEndpoints } from "./routes/entries";
import { eventEndpoints } from "./routes/events";
import { invoiceDocumentEndpoints } from "./routes/invoice-documents";
import { invoiceEndpoints } from "./routes/invoices";
import { metaEndpoints } from "./routes/meta";
import { notificationTokenEndpoints } from "./routes/notification-tokens";
import { webhookEndpointEndpoints } from "./routes/webhook-endpoints";

/** Every endpoint of the API; the app and its OpenAPI document are both built from this list. */
export const endpoints: readonly Endpoint[] = [
  ...cardOrderEndpoints,
  ...entryEndpoints,
  ...invoiceEndpoints,
  ...invoiceDocumentEndpoints,
  ...billingProfileEndpoints,
  ...notificationTokenEndpoints,
  ...eventEndpoints,
  ...webhookEndpointEndpoints,
  ...metaEndpoints,
];

/** A request's way: its context and CORS, then its route (http/mount.ts), or the error envelope. */
export const app = new HonoBase<AppEnv>({ router: new LinearRouter() });
app.use(requestContext, cors);
// LinearRouter also matches a path with a trailing slash to the path without; no path of the API ends
// in one, and such a request names no route (404).
app.use(async (c, next) => {
  if (c.req.path.length > 1 && c.req.path.endsWith("/")) return onNotFound(c);
  await next();
});
mount(app, endpoints);
app.notFound(onNotFound);
app.onError(onError);
