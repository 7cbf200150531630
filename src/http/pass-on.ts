import type { Route } from "./route";

// The requests the API Worker passes on, unread, to the jobs Worker (src/jobs), which answers them with
// the same pipeline (http/app.ts): those whose path names a route of the table (src/app.ts) that the
// jobs Worker serves (`worker: "jobs"`: the back office's, docs/api.md parts 15 and 16, and an invoice's
// payments, balance and documents), whatever their method: the jobs Worker answers a method its path
// does not allow (405) and a CORS preflight as the API Worker does its own. Their handlers' code (the
// statements' XML parser and matching, the documents' storage and rendering calls) stays out of the API
// Worker's bundle, which every customer's request loads (test/build/api-bundle.test.mjs).

const segmentsOf = (path: string) => path.split("/");

/** Whether a path's segments name a route path's (OpenAPI form): a `{parameter}` takes any one non-empty segment. */
const names = (route: string[], path: string[]) =>
  route.length === path.length && route.every((part, i) => part === path[i] || (part[0] === "{" && path[i] !== ""));

/** Whether a request's path names the route path `route` (OpenAPI form), as the router reads a path. */
export const namesRoute = (route: string, path: string): boolean => names(segmentsOf(route), segmentsOf(path));

/** The API Worker's decision, from the table's routes of the jobs Worker: whether to pass `request` on. */
export function passedOn(table: readonly Route[]): (request: Request) => boolean {
  const routes = [...new Set(table.flatMap(({ spec }) => (spec.worker === "jobs" ? [spec.path] : [])))].map(segmentsOf);
  return (request) => {
    const path = segmentsOf(new URL(request.url).pathname);
    return routes.some((route) => names(route, path));
  };
}
