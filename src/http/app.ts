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
import type { Endpoint } from "./route";

/**
 * A Worker's app for its endpoints. A request's way: its context and CORS, then its route
 * (http/mount.ts), or the error envelope.
 */
export function appOf(endpoints: readonly Endpoint[]) {
  const app = new HonoBase<AppEnv>({ router: new LinearRouter() });
  app.use(requestContext, cors);
  // LinearRouter also matches a path with a trailing slash to the path without; no path of the API ends
  // in one, and such a request names no route (404).
  app.use(async (c, next) => {
    if (c.req.path.length > 1 && c.req.path.endsWith("/")) return onNotFound(c);
    await next();
  });
  mount(app, endpoints);
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
