import { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { updateIfUnchanged, type Database, type Versioned } from "../db/client";
import type { CardOrderState } from "../domain/card-orders";
import type { EventType } from "../domain/events";
import type { InvoiceState } from "../domain/invoices";
import { assertAllowed, type Lifecycle } from "../domain/lifecycle";
import { nextTimestamp } from "../domain/time";
import type { AppEnv } from "../env";
import { database } from "../http/database";
import type { Reply } from "../http/reply";
import type { EventDraft } from "../events/outbox";
import { commit } from "./commit";

type Changes<Row> = { [K in Exclude<keyof Row, "id" | "state" | "updatedAt">]?: Row[K] | SQL };

/** What a transition does beyond moving the state and stamping the time. */
export interface TransitionEffects<Row> {
  writes?: BatchItem<"sqlite">[];
  /**
   * More changes of the row itself. A value only the batch knows (a number it takes) is SQL: the
   * response shows "" there until `fill` puts the value in.
   */
  changes?: Changes<Row>;
  /** Values the batch produces, filled into the resource shown (JSON path in it → SQL). */
  fill?: Record<string, SQL>;
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
  lifecycle: Lifecycle<State, Action, string>;
  action: Action;
  table: Versioned;
  row: Row;
  show: (row: Row) => Shown;
  /** The event the transition emits. */
  event: EventType;
  /** Checked and built after the transition table allowed the action, so invalid_state wins. */
  effects?: (orm: Database, at: string, to: State) => TransitionEffects<Row>;
}

const shown = <Row>(changes: Changes<Row>): Partial<Row> =>
  Object.fromEntries(
    Object.entries(changes).map(([key, value]) => [key, value instanceof SQL ? "" : value]),
  ) as Partial<Row>;

/**
 * Moves a loaded card order or invoice along its lifecycle: the transition table decides, the
 * time is stamped, and the write is guarded against a concurrent change. Answers `{data: ...}`.
 */
export async function applyTransition<
  State extends CardOrderState | InvoiceState,
  Row extends { id: string; state: State; updatedAt: string },
  Action extends string,
  Shown,
>(
  c: Context<AppEnv>,
  { lifecycle, action, table, row, show, event, effects }: TransitionRequest<State, Row, Action, Shown>,
): Promise<Reply<{ data: Shown }>> {
  assertAllowed(lifecycle, row.state, action);
  const { orm } = database(c);
  const { to, stamp } = lifecycle.transitions[action];
  const at = nextTimestamp(row.updatedAt);
  const changes = { state: to, updatedAt: at, ...(stamp ? { [stamp]: at } : {}) };
  const extra = effects?.(orm, at, to) ?? {};
  const data = show({ ...row, ...changes, ...shown(extra.changes ?? {}) });
  return commit(c, [...(extra.writes ?? []), updateIfUnchanged(orm, table, row, { ...changes, ...extra.changes })], {
    status: 200,
    body: { data },
    fill:
      extra.fill &&
      Object.fromEntries(Object.entries(extra.fill).map(([path, value]) => [path.replace(/^\$/, "$.data"), value])),
    events: [...(extra.precedingEvents ?? []), { type: event, data, fill: extra.fill }, ...(extra.events ?? [])],
  });
}
