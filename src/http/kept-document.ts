import type { Context } from "hono";
import type { AppEnv } from "../env";
import { type Reply, replyBody } from "./reply";

// A document kept in R2 for ever (an e-invoice, docs/api.md part 13; a collection's pain.008, part 16):
// the first request makes it and stores it, never replacing one already stored; every request after
// is served from R2 with its strong ETag, and If-None-Match answers 304. Whoever the stored document
// belongs to (`owner`, in its custom metadata) is the only one it is served to.

/** `If-None-Match`'s form: one or more quoted ETags (weak ones too), comma-separated. */
const ETAGS = /^(W\/)?"[^"]*"(\s*,\s*(W\/)?"[^"]*")*$/;

interface Kept {
  key: string;
  /** Who may read it; omitted for the back office's documents. */
  owner?: string;
}

/** The stored document as this request gets it (200, or 304), or undefined: none stored for this owner. */
export async function servedKept(c: Context<AppEnv>, { key, owner = "" }: Kept): Promise<Reply<string> | undefined> {
  const headers = new Headers({ "Cache-Control": "private" });
  // If-None-Match becomes R2's own precondition (a match answers the object without its body); only a
  // well-formed list of ETags is passed on, which R2 would otherwise refuse with an exception. "*"
  // matches any stored document.
  const ifNoneMatch = c.req.header("If-None-Match")?.trim();
  const onlyIf = ifNoneMatch && ETAGS.test(ifNoneMatch) ? new Headers({ "If-None-Match": ifNoneMatch }) : undefined;
  const stored = await c.env.DOCUMENTS.get(key, { onlyIf });
  if (!stored || (stored.customMetadata?.owner ?? stored.customMetadata?.customer ?? "") !== owner) return undefined;
  stored.writeHttpMetadata(headers);
  headers.set("ETag", stored.httpEtag);
  if (!("body" in stored) || ifNoneMatch === "*") return replyBody(c, 304, null, Object.fromEntries(headers));
  return replyBody(c, 200, stored.body, Object.fromEntries(headers));
}

/**
 * Stores `document` only if nothing is stored yet (not even a rendering of another release that raced
 * this one) and answers whatever is stored: two first requests at once answer the same bytes.
 */
export async function keepAndServe(
  c: Context<AppEnv>,
  { key, owner = "" }: Kept,
  document: string | Uint8Array,
  httpMetadata: { contentType: string; contentDisposition: string },
): Promise<Reply<string>> {
  const headers = new Headers({ "Cache-Control": "private" });
  const put = await c.env.DOCUMENTS.put(key, document, {
    httpMetadata,
    customMetadata: { owner },
    onlyIf: new Headers({ "If-None-Match": "*" }),
  });
  if (!put) {
    const first = await c.env.DOCUMENTS.get(key);
    if (first) {
      first.writeHttpMetadata(headers);
      headers.set("ETag", first.httpEtag);
      return replyBody(c, 200, first.body, Object.fromEntries(headers));
    }
  }
  headers.set("Content-Type", httpMetadata.contentType);
  headers.set("Content-Disposition", httpMetadata.contentDisposition);
  if (put) headers.set("ETag", put.httpEtag);
  return replyBody(c, 200, document, Object.fromEntries(headers));
}
