// The service on a wrapped D1 (wrap.ts), for the load run and the bench only (a derived config makes
// this file `main`; never deployed). Vars, read per request: D1_DELAY_MS (wait before every call) and
// D1_FAULT_RATE (fail that share of calls). Every response carries `x-d1-round-trips` and `x-d1-calls`.
import service from "../../src/index";
import type { Bindings } from "../../src/env";
import { wrapD1, type RoundTrips } from "./wrap";

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

export function wrapped(env: WrappedBindings, trips?: RoundTrips): Bindings {
  return {
    ...env,
    DB: wrapD1(
      env.DB,
      { delayMs: setting(env, "D1_DELAY_MS", 60_000), faultRate: setting(env, "D1_FAULT_RATE", 1) },
      trips,
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
    const trips: RoundTrips = { calls: 0, sequential: 0 };
    const response = await fetch(request, wrapped(env, trips), ctx);
    // A copy, whose headers are always mutable (those of a response that came from a fetch are not).
    const copy = new Response(response.body, response);
    if (!copy.headers.has("x-d1-round-trips")) {
      copy.headers.set("x-d1-round-trips", String(trips.sequential));
      copy.headers.set("x-d1-calls", String(trips.calls));
    }
    return copy;
  };
}

export default {
  fetch: counted(service.fetch),
} satisfies ExportedHandler<WrappedBindings>;
