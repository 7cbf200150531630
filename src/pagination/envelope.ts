import type { Context } from "hono";
import type { ListEnvelope } from "../schemas/envelopes";
import type { PageRequest } from "./query";

/** A page of a list, with absolute links that keep every other query parameter of the request. */
export function pageEnvelope<T>(c: Context, { page, pageSize }: PageRequest, data: T[], totalEntries: number): ListEnvelope<T> {
  const url = new URL(c.req.url);
  const base = url.origin + url.pathname;
  const query = url.searchParams;
  const totalPages = Math.max(1, Math.ceil(totalEntries / pageSize));
  const link = (n: number) => {
    query.set("page", String(n));
    query.set("page_size", String(pageSize));
    return `${base}?${query}`;
  };
  return {
    meta: { total_pages: totalPages, current_page: page, page_size: pageSize, total_entries: totalEntries },
    data,
    links: {
      self: link(page),
      first: link(1),
      last: link(totalPages),
      // From past the end, `prev` leads back to the last page that has entries.
      prev: page > 1 ? link(Math.min(page - 1, totalPages)) : null,
      next: page < totalPages ? link(page + 1) : null,
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
