import type { Scope } from "../auth";
import { ApiError } from "../errors";

export interface Transition<State extends string, Stamp extends string> {
  from: readonly State[];
  to: State;
  /** Who may trigger it: the owner's write scope, or `fulfilment` for back-office steps. */
  scope: Scope;
  /** The timestamp the transition sets. */
  stamp?: Stamp;
}

export interface Lifecycle<State extends string, Action extends string, Stamp extends string> {
  /** The resource's name in error messages. */
  noun: string;
  states: readonly State[];
  initial: State;
  transitions: Record<Action, Transition<State, Stamp>>;
}

/** A resource's states and transitions: the one table the routes, checks and documents read. */
export function defineLifecycle<State extends string, Action extends string, Stamp extends string>(
  lifecycle: Lifecycle<State, Action, Stamp>,
): Lifecycle<State, Action, Stamp> {
  return lifecycle;
}

export const allows = <S extends string, A extends string>(lifecycle: Lifecycle<S, A, string>, state: string, action: A): boolean =>
  (lifecycle.transitions[action].from as readonly string[]).includes(state);

export function assertAllowed<S extends string, A extends string>(lifecycle: Lifecycle<S, A, string>, state: string, action: A): void {
  if (allows(lifecycle, state, action)) return;
  const { from } = lifecycle.transitions[action];
  throw ApiError.of("invalid_state", `The ${lifecycle.noun} is ${state}; ${action} is only possible when it is ${from.join(" or ")}.`);
}

/**
 * The `updated_at` of a change: now, but always after the previous value, so that it advances on
 * every change even when two land within one millisecond. (db/notification-tokens.ts does the same
 * in SQL.)
 */
export function nextTimestamp(previous: string, now = new Date()): string {
  return new Date(Math.max(now.getTime(), Date.parse(previous) + 1)).toISOString();
}
