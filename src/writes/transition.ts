import { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { updateIfUnchanged, type Database, type Versioned } from "../db/client";
import type { CardOrderState } from "../domain/card-orders";
import type { EventType } from "../domain/events";
import type { InvoiceState } from "../domain/invoices";
import { assertAllowed, moved, type Lifecycle } from "../domain/lifecycle";
import { nextTimestamp } from "../domain/time";
import type { AppEnv } from "../env";
import { database } from "../http/database";
import type { EventDraft } from "../events/outbox";
import type { Plan } from "./commit";
import { Made } from "./made";

/** A change of the row: its value, SQL evaluated in the batch, or a value the batch makes (writes/made.ts). */
type Changes<Row> = { [K in Exclude<keyof Row, "id" | "state" | "updatedAt">]?: Row[K] | SQL | Made };

/** What a transition does beyond moving the state and stamping the time. */
export interface TransitionEffects<Row> {
  writes?: BatchItem<"sqlite">[];
  /**
   * More changes of the row itself. A value only the batch knows (a number it takes) is a Made
   * (writes/made.ts): the resource shown and its event hold its placeholder until the commit puts it in.
   */
  changes?: Changes<Row>;
  /** Values the batch makes that other resources' events show (an order's cancel: its invoice's CN number). */
  made?: readonly Made[];
  /** Events of other resources the transition changes, after the resource's own (docs/api.md part 12). */
  events?: EventDraft[];
  /** Events of other resources that come before the resource's own (a payment before its invoice's). */
  precedingEvents?: EventDraft[];
}

interface TransitionRequest<
  State extends CardOrderState | InvoiceState,
  Row extends { state: State },
  Action extends string,
  Shown,
> {
  lifecycle: Lifecycle<State, Action, string, string>;
  action: Action;
  table: Versioned;
  row: Row;
  show: (row: Row) => Shown;
  /** The event the transition emits. */
  event: EventType;
  /** Checked and built after the transition table allowed the action, so invalid_state wins. */
  effects?: (orm: Database, at: string, to: State) => TransitionEffects<Row>;
}

/** The changes as the row stores them (a made value: its SQL) and as the resource shows them (its placeholder). */
const split = <Row>(changes: Changes<Row>) => {
  const entries = Object.entries(changes);
  const stored = entries.map(([key, value]) => [key, value instanceof Made ? value.value : value]);
  // SQL shows as "" (a guarded value: the response shows what the row then holds, from elsewhere).
  const shown = entries.map(([key, value]) => [
    key,
    value instanceof Made ? value.shown : value instanceof SQL ? "" : value,
  ]);
  return {
    stored: Object.fromEntries(stored) as Record<string, unknown>,
    shown: Object.fromEntries(shown) as Partial<Row>,
    made: entries.flatMap(([, value]) => (value instanceof Made ? [value] : [])),
  };
};

/**
 * Moves a loaded card order or invoice along its lifecycle: the transition table decides, the
 * time is stamped, and the write is guarded against a concurrent change. Plans `{data: ...}`.
 */
export function applyTransition<
  State extends CardOrderState | InvoiceState,
  Row extends { id: string; state: State; updatedAt: string },
  Action extends string,
  Shown,
>(
  c: Context<AppEnv>,
  { lifecycle, action, table, row, show, event, effects }: TransitionRequest<State, Row, Action, Shown>,
): Plan<{ data: Shown }> {
  assertAllowed(lifecycle, row.state, action);
  const { orm } = database(c);
  const at = nextTimestamp(row.updatedAt);
  const changes = moved(lifecycle, row.state, { action }, at);
  const extra = effects?.(orm, at, changes.state) ?? {};
  const more = split(extra.changes ?? {});
  const data = show({ ...row, ...changes, ...more.shown });
  return {
    status: 200,
    writes: [...(extra.writes ?? []), updateIfUnchanged(orm, table, row, { ...changes, ...more.stored })],
    body: { data },
    made: [...more.made, ...(extra.made ?? [])],
    events: [...(extra.precedingEvents ?? []), { type: event, data }, ...(extra.events ?? [])],
  };
}
