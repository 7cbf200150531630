import { fromBase64url, toBase64url } from "../crypto/base64";
import { keyFor, withAnyKey, type AppSecrets } from "../crypto/keys";
import { ApiError } from "../errors";

// docs/api.md part 4: `cursor` is the server's, opaque to clients. It says where a page starts (from a
// row's sort key on, or before it, or the list's last page) for one list, filter, page and page
// size, and is signed, so that a cursor that does not fit the request it comes with is a 400.

/** A row's place in its list: (created_at, id), or (invoice_id, position) for an invoice's lines. */
export type SortKey = [string, string | number];

/**
 * Where the page is: from a row on, that row included (next: the row its page read ahead), before a
 * row (prev: the first row of the page it came from), or the last page.
 */
export type Seek = { mode: "from" | "before"; key: SortKey } | { mode: "last" };

interface Cursor {
  /** The list: its path and filters, as the request names them. */
  list: string;
  page: number;
  size: number;
  seek: Seek;
}

const MAC_BYTES = 16;
const encoder = new TextEncoder();

async function mac(key: CryptoKey, payload: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(payload));
  return toBase64url(new Uint8Array(signature).slice(0, MAC_BYTES));
}

// The same links are signed again and again (page 1's `last` and `next` until the list changes), so
// cursors are kept per isolate by what they say and the secret: a hit costs no HMAC. Bounded in
// number and size (a filter value makes a cursor as long as the client likes).
const WRITTEN_MAX = 1000;
const WRITTEN_TEXT_MAX = 512;
const written = new Map<string, string>();

export async function writeCursor(secret: string | undefined, { list, page, size, seek }: Cursor): Promise<string> {
  const text = JSON.stringify([list, page, size, seek.mode, seek.mode === "last" ? null : seek.key]);
  const id = `${secret}\n${text}`;
  let cursor = written.get(id);
  if (cursor === undefined) {
    const payload = toBase64url(encoder.encode(text));
    cursor = `${payload}.${await mac(await keyFor(secret, "list-cursors"), payload)}`;
    if (text.length <= WRITTEN_TEXT_MAX) {
      if (written.size >= WRITTEN_MAX) written.delete(written.keys().next().value!);
      written.set(id, cursor);
    }
  }
  return cursor;
}

const refused = () =>
  ApiError.of(
    "invalid_parameter",
    "cursor does not fit this list, filter, page and page_size; follow the links of an answer, or use page alone.",
    { parameter: "cursor" },
  );

/**
 * The cursor a request sent, if it is one the server wrote for exactly this list, page and size.
 * Signed under APP_SECRET, or under a previous secret while a rotation lasts (keys.ts).
 */
export async function readCursor(env: AppSecrets, text: string, expected: Omit<Cursor, "seek">): Promise<Seek> {
  const [payload, signature, extra] = text.split(".");
  if (!payload || !signature || extra !== undefined) throw refused();
  const given = encoder.encode(signature);
  await withAnyKey(env, "list-cursors", async (key) => {
    const actual = encoder.encode(await mac(key, payload));
    // In constant time, so that the time taken tells nothing of where they differ (a MAC's length is no secret).
    if (actual.byteLength !== given.byteLength || !crypto.subtle.timingSafeEqual(actual, given)) throw refused();
  });
  const [list, page, size, mode, key] = JSON.parse(new TextDecoder().decode(fromBase64url(payload))) as [
    string,
    number,
    number,
    Seek["mode"],
    SortKey | null,
  ];
  if (list !== expected.list || page !== expected.page || size !== expected.size) throw refused();
  if (mode === "last") return { mode };
  // A mode this code no longer writes (an "after" cursor from before a deploy) is refused, not read.
  if ((mode !== "from" && mode !== "before") || !Array.isArray(key)) throw refused();
  return { mode, key };
}
