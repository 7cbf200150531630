import type { Context } from "hono";
import { ApiError } from "./errors";
import type { QueryParameter } from "./http/route";

// CONTRACT part 4.
export const PAGE_SIZE_DEFAULT = 25;
export const PAGE_SIZE_MAX = 100;
// Keeps the row offset a safe integer; any page past the last simply answers an empty page.
export const PAGE_MAX = 2_147_483_647;

export const PAGE_PARAMETERS: QueryParameter[] = [
  { name: "page", description: "Page number, from 1. A page past the last is empty.", schema: { type: "integer", minimum: 1, maximum: PAGE_MAX, default: 1 } },
  { name: "page_size", description: "Entries per page.", schema: { type: "integer", minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT } },
];

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface ListEnvelope<T> {
  meta: { total_pages: number; current_page: number; page_size: number; total_entries: number };
  data: T[];
  links: { self: string; first: string; last: string; prev: string | null; next: string | null };
}

const invalid = (name: string, detail: string) => ApiError.of("invalid_parameter", detail, { parameter: name });

/** A query parameter that may appear at most once. */
function singleParameter(c: Context, name: string): string | undefined {
  const values = c.req.queries(name) ?? [];
  if (values.length > 1) throw invalid(name, `${name} must be given once.`);
  return values[0];
}

function integerParameter(c: Context, name: string, fallback: number, max: number): number {
  const value = singleParameter(c, name);
  if (value === undefined) return fallback;
  const number = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= max)) throw invalid(name, `${name} must be an integer from 1 to ${max}.`);
  return number;
}

/** Reads `page` and `page_size` from the query string. */
export function pageRequest(c: Context): PageRequest {
  const page = integerParameter(c, "page", 1, PAGE_MAX);
  const pageSize = integerParameter(c, "page_size", PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** A list filter: absent, or (when `allowed` is given) one of those values. */
export function filterParameter(c: Context, name: string, allowed?: readonly string[]): string | undefined {
  const value = singleParameter(c, name);
  if (value !== undefined && allowed && !allowed.includes(value)) throw invalid(name, `${name} must be one of: ${allowed.join(", ")}.`);
  return value;
}

export const filterDoc = (name: string, description: string, allowed?: readonly string[]): QueryParameter => ({
  name,
  description,
  schema: allowed ? { type: "string", enum: allowed } : { type: "string" },
});

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
