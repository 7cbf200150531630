// The service on the latency scenario's D1 (d1.ts), for bench/latency.mjs only: a derived config makes
// this file `main` (scripts/local-worker.mjs, option `main`), so none of it is ever deployed. Every
// response says how many D1 round trips its request waited for (`x-d1-round-trips`, sequential) and
// how many calls it made (`x-d1-calls`); a request the API Worker passes on carries the jobs Worker's
// figures (jobs.ts). D1_DELAY_MS: the wait before every call.
import service from "../../src/index";
import type { Bindings } from "../../src/env";
import { countedD1, type RoundTrips } from "./d1";

export interface DelayedBindings extends Bindings {
  D1_DELAY_MS?: string;
}

function delayOf(env: DelayedBindings): number {
  const ms = Number(env.D1_DELAY_MS ?? "0");
  if (!(ms >= 0 && ms <= 60_000)) throw new Error(`D1_DELAY_MS must be 0 to 60000, not ${env.D1_DELAY_MS}`);
  return ms;
}

export const delayed = (env: DelayedBindings, trips: RoundTrips = { calls: 0, sequential: 0 }): Bindings => ({
  ...env,
  DB: countedD1(env.DB, delayOf(env), trips),
});

type Fetch = (
  request: Request<unknown, IncomingRequestCfProperties>,
  env: Bindings,
  ctx: ExecutionContext,
) => Response | Promise<Response>;

/** A Worker's fetch on the delayed D1, its response carrying the round trips its request made. */
export const counted =
  (fetch: Fetch) =>
  async (request: Request<unknown, IncomingRequestCfProperties>, env: DelayedBindings, ctx: ExecutionContext) => {
    const trips: RoundTrips = { calls: 0, sequential: 0 };
    const response = await fetch(request, delayed(env, trips), ctx);
    // A copy, whose headers are mutable (those of a response that came from a fetch are not).
    const copy = new Response(response.body, response);
    if (!copy.headers.has("x-d1-round-trips")) {
      copy.headers.set("x-d1-round-trips", String(trips.sequential));
      copy.headers.set("x-d1-calls", String(trips.calls));
    }
    return copy;
  };

export default {
  fetch: counted(service.fetch),
} satisfies ExportedHandler<DelayedBindings>;
