// HonoBase with LinearRouter alone: 2 KiB of gzip smaller than hono's default SmartRouter, and it
// compiles nothing when routes are added (PatternRouter, hono/tiny, builds a RegExp per route at
// start-up, which every cold isolate paid for). With a few dozen routes a match costs microseconds.
import { HonoBase } from "hono/hono-base";
import { LinearRouter } from "hono/router/linear-router";
import type { AppEnv } from "../env";
import { cors } from "./cors";
import { onError, onNotFound } from "./error-response";
import { mount } from "./mount";
import { requestContext } from "./request-context";
import type { Endpoint, Route, RouteSpec } from "./route";

type Worker = "api" | "jobs";

const workerOf = (spec: RouteSpec): Worker => spec.worker ?? "api";
const named = ({ method, path }: RouteSpec) => `${method.toUpperCase()} ${path}`;
const THE = { api: "the API Worker", jobs: "the jobs Worker" };

/**
 * The endpoints `worker` serves: the routes of the table whose spec names it, in the table's order, each
 * with its handler, the table's own (the API Worker's) or, for a route the table holds by its spec alone
 * (the jobs Worker's), the one of `handlers` bound to that spec. Throws, so that the Worker does not
 * start, where the two disagree: a route without a handler, a handler of no route of `worker`, a jobs
 * Worker's route that brings its handler into the table (and so into the API Worker's bundle).
 */
function endpointsOf(worker: Worker, table: readonly Route[], handlers: readonly Endpoint[]): Endpoint[] {
  const bound = new Map(handlers.map((endpoint) => [endpoint.spec, endpoint]));
  const served = table.flatMap((route): Endpoint[] => {
    if (route.handler && route.spec.worker === "jobs")
      throw new Error(`${named(route.spec)}: the jobs Worker's route is in the table by its spec alone`);
    if (workerOf(route.spec) !== worker) return [];
    const endpoint = route.handler ? route : bound.get(route.spec);
    if (!endpoint) throw new Error(`${named(route.spec)}: no handler in ${THE[worker]}`);
    bound.delete(route.spec);
    return [endpoint];
  });
  for (const { spec } of bound.values()) throw new Error(`${named(spec)}: a handler of no route of ${THE[worker]}`);
  return served;
}

/**
 * The app of one Worker for its routes of the table (src/app.ts); `handlers`, the jobs Worker's. A
 * request's way: its context and CORS, then its route (http/mount.ts), or the error envelope.
 */
export function appOf(worker: Worker, table: readonly Route[], handlers: readonly Endpoint[] = []) {
  const app = new HonoBase<AppEnv>({ router: new LinearRouter() });
  app.use(requestContext, cors);
  // LinearRouter also matches a path with a trailing slash to the path without; no path of the API ends
  // in one, and such a request names no route (404).
  app.use(async (c, next) => {
    if (c.req.path.length > 1 && c.req.path.endsWith("/")) return onNotFound(c);
    await next();
  });
  mount(app, endpointsOf(worker, table, handlers));
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
