import api from "../../src/index";
import jobs from "../../src/jobs/index";

/**
 * The API Worker and the jobs Worker as one, the test pool's main module (vitest.config.ts): requests
 * go to the API Worker, which passes some on (http/pass-on.ts) to the jobs Worker through
 * its JOBS binding, here the jobs Worker's fetch in the same module; the local queues deliver to
 * the jobs Worker's consumer; the Cron Triggers are the jobs Worker's.
 */
export default {
  fetch: (request, env, ctx) =>
    api.fetch(request, { ...env, JOBS: { fetch: (r: Request) => jobs.fetch(r, env, ctx) } as Fetcher }, ctx),
  scheduled: jobs.scheduled,
  queue: jobs.queue,
} satisfies ExportedHandler<Cloudflare.Env, never>;
