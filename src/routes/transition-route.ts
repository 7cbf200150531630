import * as z from "zod/mini";
import type { Lifecycle } from "../domain/lifecycle";
import { NO_BODY } from "../http/request-body";
import { NO_QUERY } from "../http/request-query";
import type { RouteSpec } from "../http/route";
import { pathId } from "../schemas/formats";

const camelCase = (name: string) => name.replace(/_(\w)/g, (_, ch: string) => ch.toUpperCase());

/** The operationId of a transition's route, e.g. `submitCardOrder` (its docs are keyed by it). */
export const transitionOperationId = (action: string, resource: string) => `${camelCase(action)}${resource}`;

/**
 * The route of one transition of a lifecycle table: POST /<collection>/{id}/<action>, with its scope.
 * Its prose: transition-route.docs.ts.
 */
export function transitionRoute<Action extends string, Schema extends z.ZodMiniType>(
  lifecycle: Lifecycle<string, Action, string>,
  action: Action,
  route: { collection: string; resource: string; tag: string; schema: Schema },
) {
  return {
    method: "post",
    path: `/${route.collection}/{id}/${action}`,
    operationId: transitionOperationId(action, route.resource),
    tag: route.tag,
    access: { scope: lifecycle.transitions[action].scope, tenant: true },
    body: NO_BODY,
    query: NO_QUERY,
    params: z.object({ id: pathId(lifecycle.noun) }),
    errors: ["invalid_state", "conflict"],
    success: { status: 200, schema: route.schema },
  } satisfies RouteSpec;
}
