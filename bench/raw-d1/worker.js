// GET /?customer=<id>: page 1 of that customer's card orders as a Worker without the service's code
// would serve it: the rate limiter's call (`&limiter=off` leaves it out), a bookmarked D1 session, the
// service's own two statements (LIST_STATEMENTS, from bench/service-sql.mjs) in one batch, and the
// request log line. BENCHMARKS.md, "What it does".
import { logRequest } from "../request-log.js";

const PAGE_SIZE = 25;
const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8" };
const BOOKMARK_HEADER = "x-d1-bookmark";
// The bench's tokens all have this subject, the limiter's key in the service.
const PRINCIPAL = "bench";

/** @type {{ sql: string, params: unknown[] }[] | undefined} */
let statements;

export default {
  async fetch(request, env) {
    const started = Date.now();
    const url = new URL(request.url);
    const customer = url.searchParams.get("customer") ?? "";
    if (url.searchParams.get("limiter") !== "off") {
      const { success } = await env.RATE_LIMITER.limit({ key: PRINCIPAL });
      if (!success) return new Response("rate limited", { status: 429 });
    }
    statements ??= JSON.parse(env.LIST_STATEMENTS);
    const session = env.DB.withSession(request.headers.get(BOOKMARK_HEADER) ?? "first-unconstrained");
    const [page, total] = await session.batch(
      statements.map(({ sql, params }) =>
        session.prepare(sql).bind(...params.map((value) => (value === env.CUSTOMER ? customer : value))),
      ),
    );
    // The row read ahead only says whether a next page exists, as in the service.
    const body = {
      total_entries: total.results[0].total,
      data: page.results.slice(0, PAGE_SIZE),
      more: page.results.length > PAGE_SIZE,
    };
    const response = new Response(JSON.stringify(body), { headers: JSON_HEADERS });
    const bookmark = session.getBookmark();
    if (bookmark) response.headers.set(BOOKMARK_HEADER, bookmark);
    logRequest(request, "/", started, response.status, {
      queries: 2,
      rowsRead: page.meta.rows_read + total.meta.rows_read,
      rowsWritten: page.meta.rows_written + total.meta.rows_written,
    });
    return response;
  },
};
