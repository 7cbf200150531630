import { endpoints } from "../../src/app";
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

/** The routes that use the database: every authenticated one. */
export const DATABASE_ROUTES = ROUTES.filter((spec) => spec.access !== undefined);

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
