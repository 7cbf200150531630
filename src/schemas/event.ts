import * as z from "zod/mini";
import { sql } from "drizzle-orm";
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { componentOf, EVENT_TYPES, type EventType } from "../domain/events";
import { dateTime } from "./formats";
// Only for the order of the document's components: loaded first, payment.ts (and invoice.ts, card-order.ts
// it imports) registers before Event, as it always has. The `data` union below needs no import.
import "./payment";
import { components } from "./registry";
import { resource } from "./resource";

/**
 * The outbox: every change a client may react to, written in the batch of the change (docs/api.md
 * part 11). `data` is the resource after the change as GET shows it, as JSON text. `dispatched_at`
 * is set when the queue's consumer has the event; until then the Cron Trigger sends it again.
 */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id").notNull(),
    type: text("type").$type<EventType>().notNull(),
    createdAt: text("created_at").notNull(),
    data: text("data").notNull(),
    dispatchedAt: text("dispatched_at"),
  },
  (t) => [
    index("events_customer_created").on(t.customerId, t.createdAt, t.id),
    index("events_customer_type_created").on(t.customerId, t.type, t.createdAt, t.id),
    // The retention sweep (30 days), and the Cron Trigger's search for what was never handed over.
    index("events_created").on(t.createdAt),
    index("events_undispatched").on(t.createdAt).where(sql`${t.dispatchedAt} IS NULL`),
  ],
);

export type EventRow = typeof events.$inferSelect;

const event = resource<EventRow>()(
  "Event",
  (f) => ({
    id: f.column(() =>
      z.string().register(z.globalRegistry, { description: "Unique; also the webhook-id a receiver dedupes on." }),
    ),
    type: f.column(() => z.enum(EVENT_TYPES)),
    created_at: f.column(dateTime),
    // Stored as the serialized resource. One member per component the event types name (domain/events.ts
    // `componentOf`), looked up when first built, by when every resource's module has registered its own.
    data: f.from(
      () =>
        z
          .union(
            [...new Set(EVENT_TYPES.map(componentOf))].map((id) => {
              const schema = components._idmap.get(id);
              if (!schema) throw new Error(`No schema named ${id}`);
              return schema as z.ZodMiniType;
            }),
          )
          .register(z.globalRegistry, { description: "The resource after the change, exactly as GET showed it then." }),
      (row) => JSON.parse(row.data),
    ),
  }),
  "A change a client may react to.",
);

/** An event on the wire (GET /events, and the body of each webhook): docs/api.md part 11's fields in its order. */
export const Event = event.schema;
export type EventBody = z.input<typeof Event>;
export const toEvent = event.show;
