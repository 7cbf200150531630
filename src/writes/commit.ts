import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { principalOf } from "../auth/principal";
import { seal } from "../crypto/secret-box";
import type { GuardName } from "../db/guards";
import { deleteExpiredKey, sealedFor, storeResponse } from "../db/idempotency-keys";
import type { EventRow } from "../db/schema";
import type { AppEnv } from "../env";
import { type ApiError, DatabaseUnavailableError, WriteConflict } from "../errors";
import { enqueueEvents, enqueueIfStored } from "../events/enqueue";
import { filled, insertEvents, type EventDraft } from "../events/outbox";
import { batchNamed } from "../db/client";
import { database } from "../http/database";
import { replyText, type Reply } from "../http/reply";

// docs/api.md part 7: a stored response is replayed for 24 hours.
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

type WriteOutcome<T> = {
  status: 200 | 201 | 202 | 204;
  /** The response body; none for 204. */
  body: T;
  /** The events of the change (docs/api.md part 11), in the order they happen; all of the caller's customer. */
  events?: EventDraft[];
} & (
  | {
      /**
       * Values only the batch itself can know, such as an invoice number taken inside it: JSON path
       * in the body → SQL evaluated after the writes. The sent and the stored body are then the same.
       */
      fill?: Record<string, SQL>;
      secret?: never;
    }
  | {
      /**
       * The body shows a secret: under an Idempotency-Key it is stored sealed, never in plain text.
       * It is sealed before the batch runs, so the batch cannot fill anything in.
       */
      secret: true;
      fill?: never;
    }
);

/**
 * Ends every write request: its writes, its events and, under an Idempotency-Key, its response go to
 * D1 as one atomic batch, so that either all of it is stored or nothing is. The stored events are
 * then handed to the queue after the response (the Cron Trigger catches what that misses).
 */
export async function commit<T>(
  c: Context<AppEnv>,
  writes: BatchItem<"sqlite">[],
  outcome: WriteOutcome<T>,
  /**
   * Why a guard of the writes failed (a concurrent change: db/guards.ts), by the guard's name: the
   * error docs/api.md gives, returned or thrown, at once when the name says why (an order full), or after
   * one read when it needs what the other request did (an order no longer a draft, an invoice paid
   * meanwhile). A guard not named here, or one that gets no error, stands as a write conflict (409).
   */
  refused: { [G in GuardName]?: () => ApiError | undefined | Promise<void> } = {},
): Promise<Reply<T>> {
  const { orm } = database(c);
  const claim = c.get("idempotency");
  const text = outcome.body === undefined ? "" : JSON.stringify(outcome.body);
  const body =
    claim && outcome.secret
      ? sql`${await seal(c.env, "stored-responses", sealedFor(claim), text)}`
      : filled(text, outcome.fill);
  const drafts = outcome.events ?? [];
  const { ids, inserts: events } =
    drafts.length > 0 ? insertEvents(orm, principalOf(c).customerId, drafts) : { ids: [], inserts: [] };

  // The stored response, under a key; or, without one, the body's filled-in values read back.
  const response: BatchItem<"sqlite">[] = [];
  if (claim) {
    const now = new Date();
    if (claim.replacesExpired) response.push(deleteExpiredKey(orm, claim.principal, claim.key, now.toISOString()));
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString();
    const { principal, key, requestHash } = claim;
    response.push(storeResponse(orm, { principal, key, requestHash, status: outcome.status, expiresAt }, body));
  } else if (outcome.fill) {
    // A select rather than orm.all(): drizzle's D1 batch cannot bind parameters of raw SQL.
    response.push(orm.select({ body: sql<string>`${body}` }).from(sql`(SELECT 1)`));
  }

  // A concurrent request with the same key that got there first makes this batch fail as a write
  // conflict (409); the Idempotency-Key check then answers with that request's response.
  let results: Record<"writes" | "events" | "response", unknown[]>;
  try {
    results = await batchNamed(orm, { writes, events, response });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) c.executionCtx.waitUntil(enqueueIfStored(c.env, ids));
    if (error instanceof WriteConflict) throw (await refused[error.guard]?.()) ?? error;
    throw error;
  }

  const stored = (results.events as EventRow[][]).map((rows) => rows[0]!);
  if (stored.length > 0) c.executionCtx.waitUntil(enqueueEvents(c.env.EVENTS, stored));

  if (outcome.status === 204) return replyText<T>(c, 204, null);
  // The body the batch filled in: the stored response's (it returns its body), or the select's.
  const [filledBody] = (results.response.at(-1) ?? []) as { body: string }[];
  return replyText<T>(c, outcome.status, outcome.fill ? filledBody!.body : text);
}
