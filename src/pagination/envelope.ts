import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { ListEnvelope } from "../schemas/envelopes";
import { writeCursor, type Seek, type SortKey } from "./cursor";
import type { PageRequest } from "./query";

/** Where a page's neighbours begin: before its first row, and (if rows follow) from `next` on (keyset.ts). */
interface PageEdges {
  first: SortKey;
  next: SortKey | undefined;
}

/**
 * A page of a list, with absolute links that keep every other query parameter of the request.
 * `next`, `prev` and `last` carry a cursor, so that a client following them reads a page's rows and
 * no more; `first` never has one, and `self` is the request's own (docs/api.md part 4).
 */
export async function pageEnvelope<T>(
  c: Context<AppEnv>,
  request: PageRequest,
  data: T[],
  totalEntries: number,
  edges: PageEdges | undefined,
): Promise<ListEnvelope<T>> {
  const { page, pageSize } = request;
  const url = new URL(c.req.url);
  const base = `${url.origin}${url.pathname}?`;
  const totalPages = Math.max(1, Math.ceil(totalEntries / pageSize));
  // The request's query with `page`, `page_size` and `cursor` set where the request had them (or
  // appended), serialized once; each link fills in its page and cursor (base64url: nothing to escape).
  const query = new URLSearchParams(url.search);
  query.set("page", String(page));
  query.set("page_size", String(pageSize));
  const self = base + query;
  query.set("cursor", "");
  const parts = query.toString().split("&");
  const [pageAt, cursorAt] = [parts.indexOf(`page=${page}`), parts.indexOf("cursor=")];
  const link = async (n: number, seek?: Seek) => {
    const filled = [...parts];
    filled[pageAt] = `page=${n}`;
    // Page 1 by number reads no row it does not show: it needs no cursor.
    if (seek === undefined || n === 1) filled.splice(cursorAt, 1);
    else
      filled[cursorAt] =
        `cursor=${await writeCursor(c.env.APP_SECRET, { list: request.list, page: n, size: pageSize, seek })}`;
    return base + filled.join("&");
  };
  const [last, prev, next] = await Promise.all([
    link(totalPages, { mode: "last" }),
    // From past the end (no rows here), `prev` leads back to the last page that has entries.
    page === 1
      ? null
      : edges
        ? link(page - 1, { mode: "before", key: edges.first })
        : link(Math.min(page - 1, totalPages), { mode: "last" }),
    // The rows say whether more follow, not the count: it may have moved since page 1.
    edges?.next ? link(page + 1, { mode: "from", key: edges.next }) : null,
  ]);
  return {
    meta: { total_pages: totalPages, current_page: page, page_size: pageSize, total_entries: totalEntries },
    data,
    links: { self, first: await link(1), last, prev, next },
  };
}

/** What a POST produced, as a single page whose links are the request URL. */
export function singlePageEnvelope<T>(c: Context, data: T[]): ListEnvelope<T> {
  const self = new URL(c.req.url).href;
  return {
    meta: { total_pages: 1, current_page: 1, page_size: data.length, total_entries: data.length },
    data,
    links: { self, first: self, last: self, prev: null, next: null },
  };
}
