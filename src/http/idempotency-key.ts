import type { Context } from "hono";
import { principalOf } from "../auth/principal";
import { isSealed, open } from "../crypto/secret-box";
import { one, type Loaded, type Reads } from "../db/compiled";
import { sealedFor, storedResponse, type IdempotencyClaim, type StoredResponse } from "../db/idempotency-keys";
import type { AppEnv } from "../env";
import { ApiError, isWriteConflict } from "../errors";
import { canonicalJson } from "./canonical-json";
import { database } from "./database";
import { sendJson } from "./reply";
import { locationOf } from "../writes/commit";

// docs/api.md part 7: the Idempotency-Key of authenticated POSTs, all of it here but the storing of a
// response, which goes with the writes (writes/commit.ts, which the pipeline hands the claim that
// `lookUp` returns): the header, the request a key stands for, the stored response, and, at the bottom,
// a request run under its key and the lookup that rides with its route's first reads. Handlers never
// see the key.
const HEADER = "Idempotency-Key";
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The request a key stands for: method, path and query string as sent (a POST's links echo them),
 * tenant, and the body as JSON, so that the same body spaced or ordered otherwise is the same request.
 */
function fingerprint(c: Context<AppEnv>, customerId: string | null, body: unknown): Promise<string> {
  const target = c.req.url.slice(new URL(c.req.url).origin.length);
  return sha256(canonicalJson([c.req.method, target, customerId, body]));
}

/** The stored response when it is live, undefined when the key is free to use. */
async function replay(
  c: Context<AppEnv>,
  claim: PendingKey,
  stored: StoredResponse | undefined,
): Promise<Response | undefined> {
  if (!stored || stored.expiresAt <= new Date().toISOString()) return undefined;
  if (stored.requestHash !== claim.requestHash) {
    throw ApiError.of(
      "idempotency_key_reused",
      "This Idempotency-Key was used for a different request; use a new key.",
      { header: HEADER },
    );
  }
  // A response that showed a secret was stored sealed (writes/commit.ts).
  const body = isSealed(stored.body)
    ? await open(c.env, "stored-responses", sealedFor(claim), stored.body)
    : stored.body;
  // The answer's Location, kept with it (writes/commit.ts).
  const headers: Record<string, string> = { "Idempotent-Replayed": "true" };
  if (stored.location !== null) headers.Location = locationOf(c, stored.location);
  return sendJson(c, stored.status, body, headers);
}

/** Whether `error` answers 4xx: what a duplicate that lost the race to its first request gets. */
const refusal = (error: unknown): boolean =>
  (error instanceof ApiError && error.status < 500 && error.errors[0].code !== "idempotency_key_reused") ||
  isWriteConflict(error);

/** A keyed request's key and the request it stands for, before its lookup (http/mount.ts's load step). */
export type PendingKey = Omit<IdempotencyClaim, "replacesExpired">;

/**
 * The Idempotency-Key step of an authenticated POST, top to bottom (docs/api.md part 7): the header
 * read and checked, the request it stands for fingerprinted, then `respond` (the path, the load step
 * and the handler). The load step looks the key up in the same round trip as the route's reads
 * (`lookUp`). A duplicate sent while the first request was still running found the key free, then was
 * refused by what the first one did (its key taken, the order invoiced, the state moved): it answers
 * as the first one did. So does a request refused before its lookup (a path that names nothing).
 */
export async function underIdempotencyKey(
  c: Context<AppEnv>,
  body: unknown,
  respond: (key: PendingKey | undefined) => Promise<Response>,
): Promise<Response> {
  const header = c.req.header(HEADER);
  if (header === undefined) return respond(undefined);
  if (!KEY_PATTERN.test(header))
    throw ApiError.of("invalid_parameter", "Idempotency-Key must be 1 to 255 visible ASCII characters.", {
      header: HEADER,
    });
  const principal = principalOf(c);
  const key: PendingKey = {
    principal: principal.sub,
    key: header,
    requestHash: await fingerprint(c, principal.customerId, body),
  };
  try {
    return await respond(key);
  } catch (error) {
    // (The winner's stored response is in the batch that made the refusal, and after a write conflict
    // the session reads from the primary: db/client.ts.)
    const stored = refusal(error) ? await database(c).load(storedReadOf(key)) : undefined;
    const winner = stored && (await replay(c, key, stored.stored));
    if (winner) return winner;
    throw error;
  }
}

const storedReadOf = ({ principal, key }: PendingKey) => ({ stored: one(storedResponse(), { principal, key }) });

/**
 * The load step's round trip: the route's reads and, under a key, its lookup. A live stored response
 * answers the request (`replayed`); otherwise the handler gets what was read, and the key's `claim`
 * goes to the commit of its plan (writes/commit.ts), which stores the response with the writes.
 */
export async function lookUp<R extends Reads>(
  c: Context<AppEnv>,
  reads: R,
  key: PendingKey | undefined,
): Promise<{ replayed: Response } | { loaded: Loaded<R>; claim?: IdempotencyClaim }> {
  const db = database(c);
  if (!key) return { loaded: await db.load(reads) };
  const { stored, ...loaded } = (await db.load({ ...reads, ...storedReadOf(key) })) as Loaded<R> & {
    stored: StoredResponse | undefined;
  };
  const replayed = await replay(c, key, stored);
  if (replayed) return { replayed };
  return { loaded: loaded as Loaded<R>, claim: { ...key, replacesExpired: stored !== undefined } };
}
