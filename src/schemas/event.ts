import * as z from "zod/mini";
import type { EventRow } from "../db/schema";
import { EVENT_TYPES } from "../domain/events";
import { BillingProfile } from "./billing-profile";
import { CardOrder } from "./card-order";
import { dateTime } from "./formats";
import { Invoice } from "./invoice";
import { namedResponse } from "./registry";

/** An event on the wire (GET /events, and the body of each webhook): docs/api.md part 11's fields in its order. */
export const Event = namedResponse(
  "Event",
  () =>
    z.strictObject({
      id: z.string().register(z.globalRegistry, { description: "Unique; also the webhook-id a receiver dedupes on." }),
      type: z.enum(EVENT_TYPES),
      created_at: dateTime(),
      data: z
        .union([CardOrder, Invoice, BillingProfile])
        .register(z.globalRegistry, { description: "The resource after the change, exactly as GET showed it then." }),
    }),
  "A change a client may react to.",
);

export type EventBody = z.input<typeof Event>;

/** The stored event as the wire shows it; `data` was stored as the serialized resource. */
export const toEvent = (row: EventRow): EventBody => ({
  id: row.id,
  type: row.type,
  created_at: row.createdAt,
  data: JSON.parse(row.data) as EventBody["data"],
});
