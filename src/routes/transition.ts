import type { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { database } from "../db";
import { isWriteConflict, updateIfUnchanged, type Database, type Versioned } from "../db/client";
import { assertAllowed, changedConcurrently, nextTimestamp, type Lifecycle } from "../domain/lifecycle";
import type { AppEnv } from "../env";
import { commit } from "../idempotency";

/** What a transition does beyond moving the state and stamping the time. */
export interface TransitionEffects {
  writes: BatchItem<"sqlite">[];
  changes: Record<string, SQL>;
  /** Values the batch produces, filled into the response (see WriteOutcome.fill). */
  fill: Record<string, SQL>;
}

interface Transition<Row, Action extends string> {
  lifecycle: Lifecycle<string, Action, string>;
  action: Action;
  table: Versioned;
  row: Row;
  show: (row: Row) => unknown;
  effects?: (orm: Database, at: string) => TransitionEffects;
}

/**
 * Moves a loaded card order or invoice along its lifecycle: the transition table decides, the
 * time is stamped, and the write is guarded against a concurrent change. Answers `{data: ...}`.
 */
export async function applyTransition<Row extends { id: string; state: string; updatedAt: string }, Action extends string>(
  c: Context<AppEnv>,
  { lifecycle, action, table, row, show, effects }: Transition<Row, Action>,
): Promise<Response> {
  assertAllowed(lifecycle, row.state, action);
  const { orm } = database(c);
  const { to, stamp } = lifecycle.transitions[action];
  const at = nextTimestamp(row.updatedAt);
  const changes = { state: to, updatedAt: at, ...(stamp ? { [stamp]: at } : {}) };
  const extra = effects?.(orm, at);
  try {
    return await commit(c, [...(extra?.writes ?? []), updateIfUnchanged(orm, table, row, { ...changes, ...extra?.changes })], {
      status: 200,
      body: { data: show({ ...row, ...changes }) },
      fill: extra?.fill,
    });
  } catch (error) {
    if (isWriteConflict(error)) throw changedConcurrently(lifecycle.noun);
    throw error;
  }
}
