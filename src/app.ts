import { Hono } from "hono";
import type { AppEnv } from "./env";
import { onError, onNotFound } from "./errors";
import { corsFromEnv } from "./http/cors";
import { requestContext } from "./http/request-context";
import { mount, type Endpoint } from "./http/route";
import { cardOrderEndpoints } from "./routes/card-orders";
import { invoiceEndpoints } from "./routes/invoices";
import { metaEndpoints } from "./routes/meta";
import { notificationTokenEndpoints } from "./routes/notification-tokens";

/** Every endpoint of the API; the app and its OpenAPI document are both built from this list. */
export const endpoints: readonly Endpoint[] = [
  ...cardOrderEndpoints,
  ...invoiceEndpoints,
  ...notificationTokenEndpoints,
  ...metaEndpoints(() => endpoints),
];

export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestContext, corsFromEnv);
  mount(app, endpoints);
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
