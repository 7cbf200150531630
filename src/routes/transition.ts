import type { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import type * as z from "zod/mini";
import { database } from "../db";
import { updateIfUnchanged, type Database, type Versioned } from "../db/client";
import { assertAllowed, nextTimestamp, type Lifecycle } from "../domain/lifecycle";
import type { AppEnv } from "../env";
import type { RouteSpec } from "../http/route";
import { commit } from "../idempotency";

/** What a transition does beyond moving the state and stamping the time. */
export interface TransitionEffects {
  writes: BatchItem<"sqlite">[];
  changes?: Record<string, SQL>;
  /** Values the batch produces, filled into the response (see WriteOutcome.fill). */
  fill?: Record<string, SQL>;
}

interface Transition<Row, Action extends string> {
  lifecycle: Lifecycle<string, Action, string>;
  action: Action;
  table: Versioned;
  row: Row;
  show: (row: Row) => unknown;
  effects?: (orm: Database, at: string, to: string) => TransitionEffects;
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
  const extra = effects?.(orm, at, to);
  return commit(c, [...(extra?.writes ?? []), updateIfUnchanged(orm, table, row, { ...changes, ...extra?.changes })], {
    status: 200,
    body: { data: show({ ...row, ...changes }) },
    fill: extra?.fill,
  });
}

const camelCase = (name: string) => name.replace(/_(\w)/g, (_, ch: string) => ch.toUpperCase());

/** The route of one transition of a lifecycle table: POST /<collection>/{id}/<action>, with its scope. */
export function transitionRoute<Action extends string>(
  lifecycle: Lifecycle<string, Action, string>,
  action: Action,
  route: { collection: string; resource: string; tag: string; schema: z.ZodMiniType; effect?: string },
) {
  const { from, to, scope } = lifecycle.transitions[action];
  return {
    method: "post",
    path: `/${route.collection}/{id}/${action}`,
    operationId: `${camelCase(action)}${route.resource}`,
    summary: `${action.replace(/_/g, " ")}: ${from.join(" or ")} → ${to}`,
    description: `Takes no body. ${route.effect ?? ""}A transition not allowed from the current state answers 409 invalid_state and changes nothing.`,
    tag: route.tag,
    access: { scope, tenant: true },
    errors: ["invalid_state", "conflict"],
    success: { status: 200, description: `The ${lifecycle.noun}, now ${to}.`, schema: route.schema },
  } satisfies RouteSpec;
}
