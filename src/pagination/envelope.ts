import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { ListEnvelope } from "../schemas/envelopes";
import { writeCursor, type Seek } from "./cursor";
import type { SortKey } from "./keyset";
import type { PageRequest } from "./query";

/** The sort keys of a page's first and last row: where its neighbours begin. */
interface PageEdges {
  first: SortKey;
  last: SortKey;
  /** Whether rows follow the last one, for a page read by a cursor (keyset.ts); by number, the count says. */
  more?: boolean;
}

/**
 * A page of a list, with absolute links that keep every other query parameter of the request.
 * `next`, `prev` and `last` carry a cursor, so that a client following them reads a page's rows and
 * no more; `first` never has one, and `self` is the request's own (CONTRACT part 4).
 */
export async function pageEnvelope<T>(c: Context<AppEnv>, request: PageRequest, data: T[], totalEntries: number, edges: PageEdges | undefined): Promise<ListEnvelope<T>> {
  const { page, pageSize } = request;
  const url = new URL(c.req.url);
  const base = url.origin + url.pathname;
  const totalPages = Math.max(1, Math.ceil(totalEntries / pageSize));
  const link = async (n: number, seek?: Seek) => {
    const query = new URLSearchParams(url.searchParams);
    query.set("page", String(n));
    query.set("page_size", String(pageSize));
    // Page 1 by number reads no row it does not show: it needs no cursor.
    if (seek === undefined || n === 1) query.delete("cursor");
    else query.set("cursor", await writeCursor(c.env.APP_SECRET, { list: request.list, page: n, size: pageSize, seek }));
    return `${base}?${query}`;
  };
  const self = new URL(url);
  self.searchParams.set("page", String(page));
  self.searchParams.set("page_size", String(pageSize));
  return {
    meta: { total_pages: totalPages, current_page: page, page_size: pageSize, total_entries: totalEntries },
    data,
    links: {
      self: `${base}?${self.searchParams}`,
      first: await link(1),
      last: await link(totalPages, { mode: "last" }),
      // From past the end (no rows here), `prev` leads back to the last page that has entries.
      prev: page === 1 ? null : edges ? await link(page - 1, { mode: "before", key: edges.first }) : await link(Math.min(page - 1, totalPages), { mode: "last" }),
      // After a cursor, the rows say whether more follow: the page number may have drifted from the
      // count as rows came and went since page 1.
      next: edges && (edges.more ?? page < totalPages) ? await link(page + 1, { mode: "after", key: edges.last }) : null,
    },
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
