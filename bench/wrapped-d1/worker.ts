// The service with its D1 binding wrapped (wrap.ts), for the load run and the bench only: a derived
// config makes this file `main` (scripts/local-worker.mjs, option `main`); wrangler.toml's `main`
// stays src/index.ts, so none of this is ever deployed. Vars, both read per request:
//   D1_DELAY_MS    wait this many milliseconds before every D1 call (default 0): the latency scenario
//   D1_FAULT_RATE  fail this share of D1 calls at random (default 0): the chaos load (`--faults`)
// Every response of `fetch` carries `x-d1-round-trips`, the D1 calls its request made; the Cron Trigger
// runs on the wrapped binding too, and so does the jobs Worker's queue consumer (jobs.ts beside).
import service from "../../src/index";
import type { Bindings } from "../../src/env";
import { wrapD1, type CallCounter } from "./wrap";

export interface WrappedBindings extends Bindings {
  D1_DELAY_MS?: string;
  D1_FAULT_RATE?: string;
}

/** A var as a number within [0, max]; a malformed one fails loudly rather than measuring something else. */
function setting(env: WrappedBindings, name: "D1_DELAY_MS" | "D1_FAULT_RATE", max: number): number {
  const value = Number(env[name] ?? "0");
  if (!(value >= 0 && value <= max))
    throw new Error(`${name} must be a number from 0 to ${max}, not ${JSON.stringify(env[name])}`);
  return value;
}

export function wrapped(env: WrappedBindings, counter?: CallCounter): Bindings {
  return {
    ...env,
    DB: wrapD1(
      env.DB,
      { delayMs: setting(env, "D1_DELAY_MS", 60_000), faultRate: setting(env, "D1_FAULT_RATE", 1) },
      counter,
    ),
  };
}

type Fetch = (
  request: Request<unknown, IncomingRequestCfProperties>,
  env: Bindings,
  ctx: ExecutionContext,
) => Response | Promise<Response>;

/** A Worker's fetch on the wrapped binding, its response carrying the D1 calls it made (jobs.ts uses it too). */
export function counted(fetch: Fetch) {
  return async (
    request: Request<unknown, IncomingRequestCfProperties>,
    env: WrappedBindings,
    ctx: ExecutionContext,
  ) => {
    const counter = { count: 0 };
    const response = await fetch(request, wrapped(env, counter), ctx);
    // A copy, whose headers are always mutable (those of a response that came from a fetch are not).
    const copy = new Response(response.body, response);
    // A request the API Worker passed on carries the jobs Worker's count.
    if (!copy.headers.has("x-d1-round-trips")) copy.headers.set("x-d1-round-trips", String(counter.count));
    return copy;
  };
}

export default {
  fetch: counted(service.fetch),
} satisfies ExportedHandler<WrappedBindings>;
