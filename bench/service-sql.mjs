// The statements of page 1 of a card-order list, recorded by running src/db/card-orders.ts's
// listCardOrders against a stand-in database; run.mjs holds the raw-d1 baseline to them.
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
