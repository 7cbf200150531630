import * as z from "zod/mini";
import { ERRORS, type ErrorCode } from "../errors";
import { namedResponse } from "./registry";

const count = () => z.int().register(z.globalRegistry, { minimum: 0 });
const link = () => z.string().register(z.globalRegistry, { format: "uri" });

const PageMeta = namedResponse("PageMeta", () =>
  z.strictObject({ total_pages: count(), current_page: count(), page_size: count(), total_entries: count() }),
);
const PageLinks = namedResponse(
  "PageLinks",
  () =>
    z.strictObject({ self: link(), first: link(), last: link(), prev: z.nullable(link()), next: z.nullable(link()) }),
  "Absolute URLs built from the request URL, keeping every other query parameter.",
);

/** The paged list envelope (docs/api.md part 4) around `item`. */
export const listOf = <T extends z.ZodMiniType>(id: string, item: T) =>
  namedResponse(id, () => z.strictObject({ meta: PageMeta, data: z.array(item), links: PageLinks }));

/** `{"data": item}`, the answer of a single-resource GET or a transition. */
export const dataOf = <T extends z.ZodMiniType>(id: string, item: T) =>
  namedResponse(id, () => z.strictObject({ data: item }));

/** The body `listOf(id, item)` describes, for items of type `T`. */
export interface ListEnvelope<T> {
  meta: z.input<typeof PageMeta>;
  data: T[];
  links: z.input<typeof PageLinks>;
}

export const ErrorEnvelope = namedResponse(
  "ErrorEnvelope",
  () =>
    z.strictObject({
      errors: z.array(
        z.strictObject({
          detail: z.string(),
          code: z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]),
          source: z.union([
            z.strictObject({ pointer: z.string() }),
            z.strictObject({ parameter: z.string() }),
            z.strictObject({ header: z.string() }),
            z.strictObject({}),
          ]),
        }),
      ),
    }),
  "The seed's error envelope (2.5); `source` points at the body field, query parameter or header at fault.",
);
