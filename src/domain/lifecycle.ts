import type { Scope } from "../auth/principal";
import { ApiError } from "../errors";

/** One row of a transition table: from which states an action leads where, and who may take it. */
interface TransitionRule<State extends string, Stamp extends string> {
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
  states: readonly [State, ...State[]];
  initial: State;
  transitions: Record<Action, TransitionRule<State, Stamp>>;
}

/** A resource's states and transitions: the one table the routes, checks and documents read. */
export function defineLifecycle<State extends string, Action extends string, Stamp extends string>(
  lifecycle: Lifecycle<State, Action, Stamp>,
): Lifecycle<State, Action, Stamp> {
  return lifecycle;
}

export const allows = <S extends string, A extends string>(
  lifecycle: Lifecycle<S, A, string>,
  state: S,
  action: A,
): boolean => lifecycle.transitions[action].from.includes(state);

export function assertAllowed<S extends string, A extends string>(
  lifecycle: Lifecycle<S, A, string>,
  state: S,
  action: A,
): void {
  if (allows(lifecycle, state, action)) return;
  const { from } = lifecycle.transitions[action];
  throw ApiError.of(
    "invalid_state",
    `The ${lifecycle.noun} is ${state}; ${action} is only possible when it is ${from.join(" or ")}.`,
  );
}
