import type { Endpoint } from "../http/route";
import { billingProfileEndpoints } from "./billing-profile";
import { cardOrderEndpoints } from "./card-orders";
import { entryEndpoints } from "./entries";
import { eventEndpoints } from "./events";
import { invoiceEndpoints } from "./invoices";
import { metaEndpoints } from "./meta";
import { notificationTokenEndpoints } from "./notification-tokens";
import { webhookEndpointEndpoints } from "./webhook-endpoints";

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
