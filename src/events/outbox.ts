import type { Database } from "../db/client";
import { events } from "../db/schema";
import type { EventType } from "../domain/events";
import { newId } from "../domain/ids";
import { filled, type Made } from "../writes/made";

/**
 * An event a write produces: the resource after the change, as GET shows it then. A value only the
 * batch makes shows as its placeholder (writes/made.ts), which the insert replaces.
 */
export interface EventDraft {
  type: EventType;
  data: unknown;
  /** Whose event it is, when not the request's customer (a payment's is its invoice's customer). */
  customerId?: string;
}

/**
 * The inserts of a write's events, for its batch: no change without its event, no event without
 * its change. They happen in the order given, each a millisecond after the one before (docs/api.md
 * part 12), and each insert returns the stored row, for the queue. `ids`: to find them again when
 * the batch's answer is lost. `made`: the values of the batch the events show (writes/made.ts).
 */
export function insertEvents(
  orm: Database,
  customerId: string | null,
  drafts: EventDraft[],
  now = Date.now(),
  made: readonly Made[] = [],
) {
  const ids = drafts.map(() => newId());
  const inserts = drafts.map((draft, i) =>
    orm
      .insert(events)
      .values({
        id: ids[i]!,
        customerId: draft.customerId ?? customerId!,
        type: draft.type,
        createdAt: new Date(now + i).toISOString(),
        data: filled(JSON.stringify(draft.data), made),
        dispatchedAt: null,
      })
      .returning(),
  );
  return { ids, inserts };
}
