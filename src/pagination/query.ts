import * as z from "zod/mini";

// CONTRACT part 4.
const PAGE_SIZE_DEFAULT = 25;
const PAGE_SIZE_MAX = 100;
// Keeps the row offset a safe integer; any page past the last simply answers an empty page.
const PAGE_MAX = 2_147_483_647;

const wholeNumber = (max: number, fallback: number, description: string) =>
  z
    ._default(
      z.pipe(
        z.string().check(z.refine((v) => /^[0-9]{1,10}$/.test(v) && Number(v) >= 1 && Number(v) <= max, `must be an integer from 1 to ${max}`)),
        z.transform(Number),
      ),
      fallback,
    )
    .register(z.globalRegistry, { type: "integer", minimum: 1, maximum: max, description });

const PAGE_QUERY = {
  page: wholeNumber(PAGE_MAX, 1, "Page number, from 1. A page past the last is empty."),
  page_size: wholeNumber(PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT, "Entries per page."),
};

/** A filter parameter: one of `allowed`, or any string. */
export const filter = <const T extends readonly [string, ...string[]]>(description: string, allowed: T) =>
  z.optional(z.enum(allowed, { error: `must be one of: ${allowed.join(", ")}` })).register(z.globalRegistry, { description });

export const anyFilter = (description: string) => z.optional(z.string()).register(z.globalRegistry, { description });

/** The query of a list: `page`, `page_size` and the list's filters. */
export const listQuery = <F extends z.core.$ZodLooseShape>(filters: F) => z.object({ ...PAGE_QUERY, ...filters });

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export const pageRequest = ({ page, page_size }: { page: number; page_size: number }): PageRequest => ({ page, pageSize: page_size, offset: (page - 1) * page_size });
