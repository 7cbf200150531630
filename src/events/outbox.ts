import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { events } from "../db/schema";
import type { EventType } from "../domain/events";
import { newId } from "../domain/ids";

/** An event a write produces: the resource after the change, as GET shows it then. */
export interface EventDraft {
  type: EventType;
  data: unknown;
  /** Whose event it is, when not the request's customer (a payment's is its invoice's customer). */
  customerId?: string;
  /** Values only the write's batch knows (a number it takes): JSON path in `data` → SQL. */
  fill?: Record<string, SQL>;
}

/** `text` with the batch's values set into it, as SQL evaluated in the batch. */
export function filled(text: string, fill: Record<string, SQL> = {}): SQL {
  let json: SQL = sql`${text}`;
  for (const [path, value] of Object.entries(fill)) json = sql`json_set(${json}, ${path}, ${value})`;
  return json;
}

/**
 * The inserts of a write's events, for its batch: no change without its event, no event without
 * its change. They happen in the order given, each a millisecond after the one before (docs/api.md
 * part 12), and each insert returns the stored row, for the queue. `ids`: to find them again when
 * the batch's answer is lost.
 */
export function insertEvents(orm: Database, customerId: string | null, drafts: EventDraft[], now = Date.now()) {
  const ids = drafts.map(() => newId());
  const inserts = drafts.map((draft, i) =>
    orm
      .insert(events)
      .values({
        id: ids[i]!,
        customerId: draft.customerId ?? customerId!,
        type: draft.type,
        createdAt: new Date(now + i).toISOString(),
        data: filled(JSON.stringify(draft.data), draft.fill),
        dispatchedAt: null,
      })
      .returning(),
  );
  return { ids, inserts };
}
