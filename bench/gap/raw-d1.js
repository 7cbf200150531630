// The raw-d1 baseline (bench/raw-d1/worker.js) with what the service does around its D1 batch on the
// list path, added step by step, for `node bench/gap.mjs` only. It runs on the service's own config
// (wrangler.toml: its bindings, companions and asset layer). GAP_STEPS, a var, names the steps:
//   session  the batch in a D1 session, its bookmark in x-d1-bookmark (src/http/database.ts)
//   limit    one call of the rate limiter first (src/http/rate-limit.ts)
import { logRequest } from "../request-log.js";
import { PAGE_SQL, TOTAL_SQL, pageParams, totalParams } from "../raw-d1/sql.js";

const PAGE_SIZE = 25;

export default {
  async fetch(request, env) {
    const started = Date.now();
    const steps = env.GAP_STEPS ?? "";
    const customer = new URL(request.url).searchParams.get("customer") ?? "";
    if (steps.includes("limit")) {
      const { success } = await env.RATE_LIMITER.limit({ key: "bench" });
      if (!success) return new Response("rate limited", { status: 429 });
    }
    const db = steps.includes("session") ? env.DB.withSession("first-unconstrained") : env.DB;
    const [page, total] = await db.batch([
      db.prepare(PAGE_SQL).bind(...pageParams(customer, PAGE_SIZE)),
      db.prepare(TOTAL_SQL).bind(...totalParams(customer)),
    ]);
    const body = {
      total_entries: total.results[0].total,
      data: page.results.slice(0, PAGE_SIZE),
      more: page.results.length > PAGE_SIZE,
    };
    const headers = { "Content-Type": "application/json; charset=utf-8" };
    if (steps.includes("session")) headers["x-d1-bookmark"] = db.getBookmark() ?? "";
    const response = new Response(JSON.stringify(body), { headers });
    logRequest(request, "/", started, response.status, {
      queries: 2,
      rowsRead: page.meta.rows_read + total.meta.rows_read,
      rowsWritten: page.meta.rows_written + total.meta.rows_written,
    });
    return response;
  },
};
