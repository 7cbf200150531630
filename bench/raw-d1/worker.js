// GET /?customer=<id>: page 1 of that customer's card orders (25 rows) and the total, with the SQL
// and values the service sends, in one D1 batch as the service sends it. No router, ORM, auth or
// validation.
import { PAGE_SQL, TOTAL_SQL, pageParams, totalParams } from "./sql.js";

const PAGE_SIZE = 25;
const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8" };

export default {
  async fetch(request, env) {
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
    return new Response(JSON.stringify(body), { headers: JSON_HEADERS });
  },
};
