import type { Endpoint } from "../http/route";
import { billingProfileEndpoints } from "./billing-profile/billing-profile.handlers";
import { cardOrderEndpoints } from "./card-orders/card-orders.handlers";
import { entryEndpoints } from "./entries/entries.handlers";
import { eventEndpoints } from "./events/events.handlers";
import { invoiceEndpoints } from "./invoices/invoices.handlers";
import { metaEndpoints } from "./meta/meta.handlers";
import { notificationTokenEndpoints } from "./notification-tokens/notification-tokens.handlers";
import { webhookEndpointEndpoints } from "./webhook-endpoints/webhook-endpoints.handlers";

/** The API Worker's endpoints (src/index.ts): every route but those it passes on (http/pass-on.ts). */
export const apiEndpoints: readonly Endpoint[] = [
  ...cardOrderEndpoints,
  ...entryEndpoints,
  ...invoiceEndpoints,
  ...billingProfileEndpoints,
  ...notificationTokenEndpoints,
  ...eventEndpoints,
  ...webhookEndpointEndpoints,
  ...metaEndpoints,
];
