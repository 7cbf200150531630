import type { Context } from "hono";
import * as z from "zod/mini";
import { principalOf } from "../auth/principal";
import type { AppEnv } from "../env";
import { deferred } from "../schemas/registry";
import { readCursor, type Seek } from "./cursor";

// docs/api.md part 4.
const PAGE_SIZE_DEFAULT = 25;
const PAGE_SIZE_MAX = 100;
// Keeps the row offset a safe integer; any page past the last simply answers an empty page.
const PAGE_MAX = 2_147_483_647;

// Each parameter's schema is built on the first request that reads it (deferred), not at every cold
// start: mounting a list reads only the parameters' names.
const wholeNumber = (max: number, fallback: number, description: string) =>
  deferred(() =>
    z
      ._default(
        z.pipe(
          z
            .string()
            .check(
              z.refine(
                (v) => /^[0-9]{1,10}$/.test(v) && Number(v) >= 1 && Number(v) <= max,
                `must be an integer from 1 to ${max}`,
              ),
            ),
          z.transform(Number),
        ),
        fallback,
      )
      .register(z.globalRegistry, { type: "integer", minimum: 1, maximum: max, description }),
  );

const PAGE_QUERY = {
  page: wholeNumber(PAGE_MAX, 1, "Page number, from 1. A page past the last is empty."),
  page_size: wholeNumber(PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT, "Entries per page."),
  cursor: deferred(() =>
    z
      .optional(z.string().check(z.maxLength(1024, "must be a cursor from a link of an earlier answer")))
      .register(z.globalRegistry, {
        description:
          "Set by the server in `next`, `prev` and `last` links: that page without reading the rows before it. " +
          "Leave it as the link has it; with `page` alone a page is reached by its number. " +
          "Following `next` ends on the last page, which has none.",
      }),
  ),
};

/** A filter parameter: one of `allowed`, or any string. */
export const filter = <const T extends readonly [string, ...string[]]>(description: string, allowed: T) =>
  deferred(() =>
    z
      .optional(z.enum(allowed, { error: `must be one of: ${allowed.join(", ")}` }))
      .register(z.globalRegistry, { description }),
  );

export const anyFilter = (description: string) =>
  deferred(() => z.optional(z.string()).register(z.globalRegistry, { description }));

/** The query of a list: `page`, `page_size`, `cursor` and the list's filters. */
export const listQuery = <F extends z.core.$ZodLooseShape>(filters: F) => z.object({ ...PAGE_QUERY, ...filters });

export interface PageRequest {
  /** The list as a cursor names it: whose (customer, or voucher owner), path and filters. */
  list: string;
  page: number;
  pageSize: number;
  offset: number;
  /** From the request's cursor: where the page starts. */
  seek?: Seek;
}

/** The page a list request asks for: by its cursor (checked against the request) or by number. */
export async function pageRequest(
  c: Context<AppEnv>,
  { page, page_size: pageSize, cursor, ...filters }: { page: number; page_size: number; cursor?: string },
): Promise<PageRequest> {
  const { customerId, sub } = principalOf(c);
  const list = `${customerId ?? sub}:${c.req.path}?${new URLSearchParams(
    Object.entries(filters).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  )}`;
  const seek = cursor === undefined ? undefined : await readCursor(c.env, cursor, { list, page, size: pageSize });
  return { list, page, pageSize, offset: (page - 1) * pageSize, seek };
}
