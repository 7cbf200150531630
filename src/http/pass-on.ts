import type { Route } from "./route";

// The requests the API Worker passes on, unread, to the jobs Worker (src/jobs), which answers them with
// the same pipeline (http/app.ts): those whose path names a route of the table (src/app.ts) that the
// jobs Worker serves (`worker: "jobs"`: the back office's, docs/api.md parts 15 and 16, and an invoice's
// payments, balance and documents), whatever their method: the jobs Worker answers a method its path
// does not allow (405) and a CORS preflight as the API Worker does its own. Their handlers' code (the
// statements' XML parser and matching, the documents' storage and rendering calls) stays out of the API
// Worker's bundle, which every customer's request loads (test/build/api-bundle.test.mjs).

/**
 * Whether a request's path names the route path `route` (OpenAPI form): the same segments, where each
 * `{parameter}` takes any one non-empty segment (as the router reads a path).
 */
export function namesRoute(route: string, path: string): boolean {
  const want = route.split("/");
  const got = path.split("/");
  return want.length === got.length && want.every((part, i) => part === got[i] || (part[0] === "{" && got[i] !== ""));
}

/** The API Worker's decision, from the table's routes of the jobs Worker: whether to pass `request` on. */
export function passedOn(table: readonly Route[]): (request: Request) => boolean {
  const paths = [...new Set(table.flatMap(({ spec }) => (spec.worker === "jobs" ? [spec.path] : [])))];
  return (request) => {
    const { pathname } = new URL(request.url);
    return paths.some((route) => namesRoute(route, pathname));
  };
}
