import * as z from "zod/mini";
import type { Lifecycle } from "../domain/lifecycle";
import { NO_BODY } from "../http/request-body";
import { NO_QUERY } from "../http/request-query";
import type { RouteSpec } from "../http/route";
import { pathId } from "../schemas/formats";

const camelCase = (name: string) => name.replace(/_(\w)/g, (_, ch: string) => ch.toUpperCase());

/**
 * The route of one transition of a lifecycle table: POST /<collection>/{id}/<action>, with its scope and
 * its prose; `effects`: what the action does beyond changing the state, as a sentence ending in a space.
 */
export function transitionRoute<Action extends string, Schema extends z.ZodMiniType>(
  lifecycle: Lifecycle<string, Action, string>,
  action: Action,
  route: { collection: string; resource: string; tag: string; schema: Schema; effects?: string },
) {
  const { from, to, scope } = lifecycle.transitions[action];
  return {
    method: "post",
    path: `/${route.collection}/{id}/${action}`,
    operationId: `${camelCase(action)}${route.resource}`,
    tag: route.tag,
    access: { scope, tenant: true },
    body: NO_BODY,
    query: NO_QUERY,
    params: z.object({ id: pathId(lifecycle.noun) }),
    errors: ["invalid_state", "conflict"],
    success: { status: 200, schema: route.schema },
    docs: {
      summary: `${action.replace(/_/g, " ")}: ${from.join(" or ")} → ${to}`,
      description:
        `Takes no body. ${route.effects ?? ""}` +
        "A transition not allowed from the current state answers 409 invalid_state and changes nothing.",
      success: `The ${lifecycle.noun}, now ${to}.`,
    },
  } satisfies RouteSpec;
}
