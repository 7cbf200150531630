// The statements the service sends for page 1 of a card-order list, read off the service's own
// query code: src/db/card-orders.ts is bundled as it is, and its listCardOrders is run against a
// stand-in database that records the SQL and the bound values instead of querying. run.mjs compares
// the result with what the raw-d1 baseline sends before measuring.
import { importSource } from "../scripts/import-source.mjs";

/** The statements (page, total) of page 1 of `customer`'s unfiltered list, in order. */
export async function serviceListStatements({ customer, pageSize }) {
  // listCardOrders and the function that binds a compiled read's values, as the service has them.
  const { listCardOrders, bindValues } = await importSource(
    'export { listCardOrders } from "./src/db/card-orders.ts"; export { bindValues } from "./src/db/compiled.ts";',
  );
  const sent = [];
  // readAll is the one call a list page makes (src/db/keyset.ts, readPage).
  const recorder = {
    readAll: async (...reads) => {
      for (const [read, values] of reads) sent.push({ sql: read.sql, params: bindValues(read, values) });
      return [[], [{ total: 0 }]];
    },
  };
  // Page 1 by number, as GET /card_orders?page_size=<n> asks for it (src/pagination/query.ts).
  await listCardOrders(recorder, customer, undefined, { list: "", page: 1, pageSize, offset: 0 });
  return sent;
}
