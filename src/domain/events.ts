// docs/api.md parts 11, 13, 15, 16 and 17: every change a client may react to, by type. Each belongs to a
// customer: the order's, the invoice's, the profile's.
export const EVENT_TYPES = [
  "card_order.submitted",
  "card_order.production_started",
  "card_order.delivered",
  "card_order.cancelled",
  "invoice.created",
  "invoice.paid",
  "invoice.cancelled",
  "billing_profile.updated",
  "payment.received",
  "payment.returned",
  // docs/api.md part 17: the invoice's customer's.
  "invoice_delivery.sent",
  "invoice_delivery.failed",
  "invoice_delivery.delivered",
  "invoice_delivery.bounced",
  // docs/api.md part 18: the invoice's customer's.
  "invoice.overdue",
  "reminder.created",
  "dunning.held",
  "dunning.released",
  "dunning.ended",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The named component (src/schemas/registry.ts) an event of `type` carries as `data`: its prefix in
 * PascalCase, `card_order.submitted` → `CardOrder`. The Event schema and the OpenAPI webhooks both take
 * it from here, so a new resource's event type is added above and nowhere else.
 */
export const componentOf = (type: EventType) =>
  type.split(".")[0]!.replace(/(?:^|_)(\w)/g, (_, letter: string) => letter.toUpperCase());

/** Events are kept this long; the Cron Trigger sweeps older ones. */
export const EVENT_RETENTION_DAYS = 30;

/** The event of each card order transition (docs/api.md part 11: every transition but none from a draft's creation). */
export const CARD_ORDER_EVENTS = {
  submit: "card_order.submitted",
  start_production: "card_order.production_started",
  deliver: "card_order.delivered",
  cancel: "card_order.cancelled",
} as const satisfies Record<string, EventType>;

export const INVOICE_EVENTS = { pay: "invoice.paid", cancel: "invoice.cancelled" } as const satisfies Record<
  string,
  EventType
>;
