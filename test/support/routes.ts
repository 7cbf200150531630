import { endpoints } from "../../src/app";
import { namesRoute } from "../../src/http/pass-on";
import type { RouteSpec } from "../../src/http/route";

// The route table (src/app.ts) as the tests that must cover all of it read it. Their cases follow
// from it: a route's spec (its method, scope, body) and its example (test/support/examples.ts).

/** A route's name in test cases: its method and OpenAPI path, e.g. `POST /card_orders/{id}/submit`. */
export const routeName = (spec: Pick<RouteSpec, "method" | "path">): string =>
  `${spec.method.toUpperCase()} ${spec.path}`;

export const ROUTES: readonly RouteSpec[] = endpoints.map(({ spec }) => spec);

/** The routes that change something: every method but GET. */
export const WRITE_ROUTES = ROUTES.filter((spec) => spec.method !== "get");

/** Public routes (no access requirement): served without a token and without the database (src/http/mount.ts). */
export const PUBLIC_ROUTES = ROUTES.filter((spec) => spec.access === undefined);

/** The routes with an access requirement (a token, its scope, for most a customer). */
export const SECURED_ROUTES = ROUTES.filter((spec) => spec.access !== undefined);

/** The routes that use the database: every authenticated one. */
export const DATABASE_ROUTES = ROUTES.filter((spec) => spec.access !== undefined);

/** The route a request reaches (a literal segment before a parameter, as the router does), if any. */
export function routeOf(method: string, url: string): RouteSpec | undefined {
  const { pathname } = new URL(url);
  const found = ROUTES.filter((spec) => spec.method === method.toLowerCase() && namesRoute(spec.path, pathname));
  return found.sort((a, b) => paramsOf(a) - paramsOf(b))[0];
}

const paramsOf = (spec: RouteSpec) => (spec.path.match(/\{/g) ?? []).length;
