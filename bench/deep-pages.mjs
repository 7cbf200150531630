// Deep pagination (issue 11 part 2), measured on the seeded list of one customer: the rows D1 read
// (the service's request log, d1_rows_read) for page 1, for every page reached by following
// `links.next` (a cursor) to the last, for `links.last`, and for the last page and a page past the
// end asked for by number (OFFSET), as a client with only `page` in its URL does.
import { expectStatus } from "./http.mjs";
import { PROBE_PREFIX } from "./log-lines.mjs";

/**
 * @param {{
 *   url: string, token: string, total: number, pageSize: number, logLines: import("./log-lines.mjs").LogLines
 * }} options
 *   `total`: the rows of the token's customer's card-order list
 */
export async function measureDeepPages({ url, token, total, pageSize, logLines }) {
  let sent = 0;
  const read = async (link) => {
    const requestId = `${PROBE_PREFIX}deep-${sent++}`;
    const { body } = await expectStatus(200, link, { token, requestId });
    return { body, rowsRead: (await logLines.get(requestId)).d1_rows_read };
  };
  const list = `${url}/card_orders?page_size=${pageSize}`;
  const pages = Math.ceil(total / pageSize);

  const first = await read(list);
  let page = first;
  let cursorMax = 0;
  for (let number = 2; number <= pages; number++) {
    if (!page.body.links.next?.includes("cursor="))
      throw new Error(`page ${number - 1} has no next link with a cursor: ${page.body.links.next}`);
    page = await read(page.body.links.next);
    cursorMax = Math.max(cursorMax, page.rowsRead);
  }
  // The last page is full (3,000 rows at 10 a page), so its next leads to an empty page that ends the walk.
  const after = page.body.links.next === null ? undefined : await read(page.body.links.next);
  if (
    page.body.meta.current_page !== pages ||
    (after && (after.body.data.length !== 0 || after.body.links.next !== null))
  ) {
    throw new Error(`following next did not end after page ${pages}: ${JSON.stringify(page.body.meta)}`);
  }
  const last = await read(first.body.links.last);
  const byNumber = await read(`${list}&page=${pages}`);
  const pastEnd = await read(`${list}&page=${pages + 1}`);
  const ids = (body) => body.data.map((row) => row.id).join();
  if (ids(byNumber.body) !== ids(page.body) || ids(last.body) !== ids(page.body))
    throw new Error(`page ${pages} by next, by last and by number differ`);
  if (pastEnd.body.data.length !== 0) throw new Error(`page ${pages + 1} of ${pages} is not empty`);

  return {
    page_size: pageSize,
    pages,
    rows_read: {
      page_1: first.rowsRead,
      next_max: cursorMax,
      [`next_to_page_${pages}`]: page.rowsRead,
      last_link: last.rowsRead,
      [`page_${pages}_by_number`]: byNumber.rowsRead,
      [`page_${pages + 1}_by_number`]: pastEnd.rowsRead,
    },
  };
}
