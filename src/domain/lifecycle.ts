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

/** A move the service makes itself, no route's: a payment settling an invoice, a return reopening it. */
interface MoveRule<State extends string, Stamp extends string> {
  from: readonly State[];
  to: State;
  /** The timestamp the move sets. */
  stamp?: Stamp;
  /** The timestamp the move clears (a reopened invoice is no longer paid). */
  clears?: Stamp;
}

export interface Lifecycle<
  State extends string,
  Action extends string,
  Stamp extends string,
  Move extends string = never,
> {
  /** The resource's name in error messages. */
  noun: string;
  states: readonly [State, ...State[]];
  initial: State;
  /** The actions a client takes, each a route (routes/transition-route.ts). */
  transitions: Record<Action, TransitionRule<State, Stamp>>;
  /** The moves the service makes on its own (a write's consequence, no route). */
  moves?: Record<Move, MoveRule<State, Stamp>>;
}

/** A resource's states and transitions: the one table the routes, checks, writes and documents read. */
export function defineLifecycle<
  State extends string,
  Action extends string,
  Stamp extends string,
  Move extends string = never,
>(lifecycle: Lifecycle<State, Action, Stamp, Move>): Lifecycle<State, Action, Stamp, Move> {
  return lifecycle;
}

/** The columns a transition or a move sets on a row in `from` at `at`: its state, its stamps and its time. */
type Moved<State extends string, Stamp extends string> = { state: State; updatedAt: string } & {
  [K in Stamp]?: string | null;
};

/**
 * The columns `step` (an action or a move of `lifecycle`) sets on a row in state `from` at `at`. A step
 * the table does not allow from there is a bug in the caller (its guard read the state): it throws.
 */
export function moved<S extends string, A extends string, St extends string, M extends string>(
  lifecycle: Lifecycle<S, A, St, M>,
  from: S,
  step: { action: A } | { move: M },
  at: string,
): Moved<S, St> {
  const rule: MoveRule<S, St> = "action" in step ? lifecycle.transitions[step.action] : lifecycle.moves![step.move];
  if (!rule.from.includes(from))
    throw new Error(`${lifecycle.noun}: ${JSON.stringify(step)} is not allowed from ${from}`);
  const changes: Record<string, string | null> = { state: rule.to, updatedAt: at };
  if (rule.stamp) changes[rule.stamp] = at;
  if (rule.clears) changes[rule.clears] = null;
  return changes as Moved<S, St>;
}

export const allows = <S extends string, A extends string>(
  lifecycle: Lifecycle<S, A, string, string>,
  state: S,
  action: A,
): boolean => lifecycle.transitions[action].from.includes(state);

export function assertAllowed<S extends string, A extends string>(
  lifecycle: Lifecycle<S, A, string, string>,
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
