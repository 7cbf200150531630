// GET /?customer=<id>: page 1 of that customer's card orders (25 rows) and the total, with the SQL
// and values the service sends, in one D1 batch as the service sends it. No router, ORM, auth or
// validation; the request log line, as the service writes one (bench/request-log.js).
import { logRequest } from "../request-log.js";
import { PAGE_SQL, TOTAL_SQL, pageParams, totalParams } from "./sql.js";

const PAGE_SIZE = 25;
const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8" };

export default {
  async fetch(request, env) {
    const started = Date.now();
    const customer = new URL(request.url).searchParams.get("customer") ?? "";
    const [page, total] = await env.DB.batch([
      env.DB.prepare(PAGE_SQL).bind(...pageParams(customer, PAGE_SIZE)),
      env.DB.prepare(TOTAL_SQL).bind(...totalParams(customer)),
    ]);
    // The row read ahead only says whether a next page exists, as in the service.
    const body = {
      total_entries: total.results[0].total,
      data: page.results.slice(0, PAGE_SIZE),
      more: page.results.length > PAGE_SIZE,
    };
    const response = new Response(JSON.stringify(body), { headers: JSON_HEADERS });
    logRequest(request, "/", started, response.status, {
      queries: 2,
      rowsRead: page.meta.rows_read + total.meta.rows_read,
      rowsWritten: page.meta.rows_written + total.meta.rows_written,
    });
    return response;
  },
};
