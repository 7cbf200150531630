import type { Context } from "hono";
import { principalOf } from "../auth/principal";
import { isSealed, open } from "../crypto/secret-box";
import { sealedFor, storedResponse, type IdempotencyClaim, type StoredResponse } from "../db/idempotency-keys";
import type { AppEnv } from "../env";
import { ApiError, isWriteConflict } from "../errors";
import { canonicalJson } from "./canonical-json";
import { database } from "./database";
import { sendJson } from "./reply";

// docs/api.md part 7: the Idempotency-Key of authenticated POSTs, all of it here but the storing of a
// response, which goes with the writes (writes/commit.ts): the header, the request a key stands for,
// the stored response, and, at the bottom, a request run under its key.
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
  claim: IdempotencyClaim,
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
  return sendJson(c, stored.status, body, { "Idempotent-Replayed": "true" });
}

/** Whether `error` answers 4xx: what a duplicate that lost the race to its first request gets. */
const refusal = (error: unknown): boolean =>
  (error instanceof ApiError && error.status < 500 && error.errors[0].code !== "idempotency_key_reused") ||
  isWriteConflict(error);

/**
 * What a handler's first reads go through: `read`, then `act` on what it read (`act` alone: no
 * reads). Under an Idempotency-Key, the key's lookup goes to D1 in the same batch as those reads, and
 * a repeat is answered with the stored response instead of `act`.
 */
export interface WithKey {
  <R extends Response>(act: () => Promise<R>): Promise<R>;
  <T, R extends Response>(read: () => Promise<T>, act: (read: T) => Promise<R>): Promise<R>;
}

/** Without a key: the reads, then the act. */
export const unkeyed = (async (read: () => Promise<unknown>, act?: (read: unknown) => Promise<Response>) =>
  act ? act(await read()) : read()) as WithKey;

/**
 * An authenticated POST, top to bottom (docs/api.md part 7). A repeat of an earlier request (same
 * principal and key, same request: see fingerprint) within 24 hours gets the stored response;
 * otherwise the handler acts with the claim set, and the write path (writes/commit.ts) stores its
 * response with its writes. `body` is the parsed JSON body; `respond` runs the rest of the request
 * (http/mount.ts), its handler taking its first reads through the `WithKey` it is given.
 */
export async function withIdempotencyKey(
  c: Context<AppEnv>,
  body: unknown,
  respond: (withKey: WithKey) => Promise<Response>,
): Promise<Response> {
  const key = c.req.header(HEADER);
  if (key === undefined) return respond(unkeyed);
  if (!KEY_PATTERN.test(key))
    throw ApiError.of("invalid_parameter", "Idempotency-Key must be 1 to 255 visible ASCII characters.", {
      header: HEADER,
    });

  const principal = principalOf(c);
  const requestHash = await fingerprint(c, principal.customerId, body);
  const claim: IdempotencyClaim = { principal: principal.sub, key, requestHash, replacesExpired: false };
  const db = database(c);
  const values = { principal: principal.sub, key };
  // The lookup joins the handler's first reads, so a keyed write costs no extra round trip, and a
  // repeat ends before the handler acts on what it read.
  let looked = false;
  const withKey = async (read?: () => Promise<unknown>, act?: (read: unknown) => Promise<Response>) => {
    looked = true;
    if (!act) [read, act] = [undefined, read as () => Promise<Response>];
    const [[stored], found] = await db.readAlong(storedResponse(), values, read);
    const replayed = await replay(c, claim, stored);
    if (replayed) return replayed;
    claim.replacesExpired = stored !== undefined;
    c.set("idempotency", claim);
    return act(found);
  };
  try {
    const response = await respond(withKey as WithKey);
    // A keyed handler that answered without withKey would have ignored the key: a bug, not a reply.
    if (!looked) throw new Error(`${c.req.method} ${c.req.routePath} answered an Idempotency-Key without withKey`);
    return response;
  } catch (error) {
    // A duplicate sent while the first request was still running found the key free, then was
    // refused by what the first one did (its key taken, the order invoiced, the state moved):
    // answer as the first one did. (Its stored response is in the batch that made the refusal, and
    // after a write conflict the session reads from the primary: db/client.ts.) A request refused
    // before its lookup (a path that names nothing) learns here whether its key was used before.
    const winner = refusal(error) ? await replay(c, claim, (await db.read(storedResponse(), values))[0]) : undefined;
    if (winner) return winner;
    throw error;
  }
}
