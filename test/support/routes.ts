import { endpoints } from "../../src/app";
import type { RouteSpec } from "../../src/http/route";

// The route table (src/app.ts) as the tests that must cover all of it read it: a test keeps its
// cases by route name and fails when the table has a route it lacks.

/** A route's name in test cases: its method and OpenAPI path, e.g. `POST /card_orders/{id}/submit`. */
export const routeName = (spec: Pick<RouteSpec, "method" | "path">): string =>
  `${spec.method.toUpperCase()} ${spec.path}`;

export const ROUTES: readonly RouteSpec[] = endpoints.map(({ spec }) => spec);

/** The routes that change something: every method but GET. */
export const WRITE_ROUTES = ROUTES.filter((spec) => spec.method !== "get");

const matchers = ROUTES.map((spec) => ({
  spec,
  method: spec.method.toUpperCase(),
  params: (spec.path.match(/\{/g) ?? []).length,
  path: new RegExp(`^${spec.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`),
}));

/** The route a request reaches (a literal segment before a parameter, as the router does), if any. */
export function routeOf(method: string, url: string): RouteSpec | undefined {
  const { pathname } = new URL(url);
  const found = matchers.filter((m) => m.method === method.toUpperCase() && m.path.test(pathname));
  return found.sort((a, b) => a.params - b.params)[0]?.spec;
}
