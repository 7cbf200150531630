import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context, MiddlewareHandler } from "hono";
import { principalOf } from "./auth";
import { database } from "./db";
import { deleteExpiredKey, findStoredResponse, storeResponse, type StoredResponse } from "./db/idempotency-keys";
import type { AppEnv } from "./env";
import { ApiError } from "./errors";
import { jsonResponse } from "./http/json";

// CONTRACT part 7.
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const HEADER = "Idempotency-Key";
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyContext {
  principal: string;
  key: string;
  requestHash: string;
  /** An expired response still holds the key: the write frees it first. */
  replacesExpired: boolean;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The stored response when it is live, undefined when the key is free to use. */
function replay(c: Context<AppEnv>, context: IdempotencyContext, stored: StoredResponse | undefined): Response | undefined {
  if (!stored || stored.expiresAt <= new Date().toISOString()) return undefined;
  if (stored.requestHash !== context.requestHash) {
    throw ApiError.of("idempotency_key_reused", "This Idempotency-Key was used for a different request; use a new key.", { header: HEADER });
  }
  return jsonResponse(c, stored.status, stored.body, { "Idempotent-Replayed": "true" });
}

/**
 * For POST routes: a repeat of an earlier request (same principal, key, method, path, tenant and
 * body) within 24 hours gets the stored response and writes nothing.
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header(HEADER);
  if (key === undefined) return next();
  if (!KEY_PATTERN.test(key)) throw ApiError.of("invalid_parameter", "Idempotency-Key must be 1 to 255 visible ASCII characters.", { header: HEADER });

  const principal = principalOf(c);
  const requestHash = await sha256([c.req.method, c.req.path, principal.customerId ?? "", c.var.rawBody ?? ""].join("\n"));
  const context: IdempotencyContext = { principal: principal.sub, key, requestHash, replacesExpired: false };
  const stored = await findStoredResponse(database(c).orm, principal.sub, key);
  const replayed = replay(c, context, stored);
  if (replayed) return replayed;
  context.replacesExpired = stored !== undefined;
  c.set("idempotency", context);
  await next();
  // A duplicate sent while the first request was still running found the key free, then was
  // refused by what the first one did (its key taken, the order invoiced, the state moved): answer
  // as the first one did.
  if (c.res.status >= 400 && c.res.status < 500) {
    const replayed = replay(c, context, await findStoredResponse(database(c).orm, principal.sub, key));
    if (replayed) c.res = replayed;
  }
};

export interface WriteOutcome {
  status: 200 | 201 | 204;
  /** The response body; none for 204. */
  body?: unknown;
  /**
   * Values only the batch itself can know, such as an invoice number taken inside it: JSON path in
   * the body → SQL evaluated after the writes. The sent and the stored body are then the same.
   */
  fill?: Record<string, SQL>;
}

/**
 * Ends every write request: its writes and, under an Idempotency-Key, its response go to D1 as one
 * atomic batch, so that either all of it is stored or nothing is.
 */
export async function commit(c: Context<AppEnv>, writes: BatchItem<"sqlite">[], outcome: WriteOutcome): Promise<Response> {
  const { orm } = database(c);
  const context = c.var.idempotency;
  const text = outcome.body === undefined ? "" : JSON.stringify(outcome.body);
  let body: SQL = sql`${text}`;
  for (const [path, value] of Object.entries(outcome.fill ?? {})) body = sql`json_set(${body}, ${path}, ${value})`;

  const statements = [...writes];
  if (context) {
    const now = new Date();
    if (context.replacesExpired) statements.push(deleteExpiredKey(orm, context.principal, context.key, now.toISOString()));
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString();
    statements.push(storeResponse(orm, { principal: context.principal, key: context.key, requestHash: context.requestHash, status: outcome.status, expiresAt }, body));
  } else if (outcome.fill) {
    // A select rather than orm.all(): drizzle's D1 batch cannot bind parameters of raw SQL.
    statements.push(orm.select({ body: sql<string>`${body}` }).from(sql`(SELECT 1)`));
  }

  // A concurrent request with the same key that got there first makes this batch fail as a write
  // conflict (409); the middleware above then answers with that request's response.
  const results: unknown[] = await orm.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);

  if (outcome.status === 204) return c.body(null, 204);
  const sent = context || outcome.fill ? (results.at(-1) as { body: string }[])[0]!.body : text;
  return jsonResponse(c, outcome.status, sent);
}
