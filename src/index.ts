import { endpoints } from "./app";
import type { Bindings } from "./env";
import { appOf } from "./http/app";
import { passedOn } from "./http/pass-on";

// The API Worker (wrangler.toml): the requests, nothing else. The queues' consumers, the Cron Triggers
// (src/jobs/crons.ts) and the requests this Worker passes on (http/pass-on.ts) run in the jobs Worker
// (src/jobs, wrangler.jobs.toml), whose code this Worker's bundle, which every request's isolate loads,
// does not carry.
const app = appOf("api", endpoints);
const isPassedOn = passedOn(endpoints);

export default {
  // A request passed on goes as it came, body unread, its URL (and so its links) unchanged.
  fetch: (request, env, ctx) => (isPassedOn(request) ? env.JOBS.fetch(request) : app.fetch(request, env, ctx)),
} satisfies ExportedHandler<Bindings>;
