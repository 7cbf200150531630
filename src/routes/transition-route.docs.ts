import type { Lifecycle } from "../domain/lifecycle";
import type { RouteDocs } from "../http/route";
import { transitionOperationId } from "./transition-route";

/**
 * The prose of every transition route of a lifecycle table (transition-route.ts), keyed by
 * operationId; `effects`: what an action does beyond changing the state, as a sentence ending in a space.
 */
export function transitionDocs<Action extends string>(
  lifecycle: Lifecycle<string, Action, string>,
  resource: string,
  effects: Partial<Record<Action, string>> = {},
): Record<string, RouteDocs> {
  return Object.fromEntries(
    (Object.keys(lifecycle.transitions) as Action[]).map((action) => {
      const { from, to } = lifecycle.transitions[action];
      const docs: RouteDocs = {
        summary: `${action.replace(/_/g, " ")}: ${from.join(" or ")} → ${to}`,
        description:
          `Takes no body. ${effects[action] ?? ""}` +
          "A transition not allowed from the current state answers 409 invalid_state and changes nothing.",
        success: `The ${lifecycle.noun}, now ${to}.`,
      };
      return [transitionOperationId(action, resource), docs];
    }),
  );
}
