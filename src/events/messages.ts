import type { EventBody } from "../schemas/event";

/**
 * What travels through the events queue. An event is fanned out once into one delivery per
 * webhook endpoint and one push per device, each retried on its own, so that one failing receiver
 * never delays or loses another's events.
 */
export type QueueMessage =
  | { kind: "event"; customerId: string; event: EventBody }
  | {
      kind: "delivery";
      endpointId: string;
      event: EventBody /** Failed attempts on the events queue before the slow lane took it. */;
      priorAttempts?: number;
    }
  | { kind: "push"; eventId: string; orderId: string; token: string; entryIds: string[]; cardHolderNames: string[] };
