import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { principalOf } from "../auth/principal";
import { seal } from "../crypto/secret-box";
import type { GuardName } from "../db/guards";
import { deleteExpiredKey, sealedFor, storeResponse, type IdempotencyClaim } from "../db/idempotency-keys";
import type { EventRow } from "../db/schema";
import type { AppEnv } from "../env";
import { type ApiError, DatabaseUnavailableError, WriteConflict } from "../errors";
import { enqueueEvents, enqueueIfStored } from "../events/enqueue";
import { insertEvents, type EventDraft } from "../events/outbox";
import { filled, type Made } from "./made";
import { batchNamed } from "../db/client";
import { database } from "../http/database";
import { replyText, type Reply } from "../http/reply";

// docs/api.md part 7: a stored response is replayed for 24 hours.
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Why a guard of the writes failed, by the guard's name (see `Plan.refused`). */
type Refusals = { [G in GuardName]?: () => ApiError | undefined | Promise<void> };

/**
 * A write, as data: what a write handler returns, and `commit` stores as one batch and answers. The
 * body and the events show each value the batch makes (an invoice number) as its placeholder, listed
 * in `made` (writes/made.ts).
 */
export type Plan<T> = {
  status: 200 | 201 | 202 | 204;
  /** The changes, in order; the batch runs them before the events and the stored response. */
  writes: BatchItem<"sqlite">[];
  /** The response body; none for 204. */
  body: T;
  /** The events of the change (docs/api.md part 11), in the order they happen; all of the caller's customer. */
  events?: EventDraft[];
  /** The id of the resource made, for `Location` (under the route's path): answered, and stored for replay. */
  location?: string;
  /**
   * Why a guard of the writes failed (a concurrent change: db/guards.ts), by the guard's name: the
   * error docs/api.md gives, returned or thrown, at once when the name says why (an order full), or after
   * one read when it needs what the other request did (an order no longer a draft, an invoice paid
   * meanwhile). A guard not named here, or one that gets no error, stands as a write conflict (409).
   */
  refused?: Refusals;
  /** What follows the batch: a message for a queue once it is stored, the undoing of a file when it failed. */
  after?: { stored?: () => void; failed?: () => void };
} & (
  | {
      /** Values only the batch itself can know: the body and the events show their placeholders. */
      made?: readonly Made[];
      secret?: never;
    }
  | {
      /**
       * The body shows a secret: under an Idempotency-Key it is stored sealed, never in plain text.
       * It is sealed before the batch runs, so the batch cannot make any of its values.
       */
      secret: true;
      made?: never;
    }
);

/** Whether a handler answered with a plan (to commit) or with a response of its own (a read, a no-op). */
export const isPlan = <T>(answer: Response | Plan<T>): answer is Plan<T> => !(answer instanceof Response);

/**
 * Ends every write request: the plan's writes, its events and, under an Idempotency-Key (`claim`, the
 * key the load step found free: http/idempotency-key.ts), its response go to D1 as one atomic batch,
 * so that either all of it is stored or nothing is. The stored events are then handed to the queue
 * after the response (the Cron Trigger catches what that misses). `path`: the route's, under which
 * `Location` names the resource made.
 */
export async function commit<T>(
  c: Context<AppEnv>,
  plan: Plan<T>,
  claim: IdempotencyClaim | undefined,
  path: string,
): Promise<Reply<T>> {
  try {
    return await store(c, plan, claim, path);
  } catch (error) {
    plan.after?.failed?.();
    throw error;
  }
}

async function store<T>(
  c: Context<AppEnv>,
  plan: Plan<T>,
  claim: IdempotencyClaim | undefined,
  path: string,
): Promise<Reply<T>> {
  const { orm } = database(c);
  const made = plan.made ?? [];
  const text = plan.body === undefined ? "" : JSON.stringify(plan.body);
  // The sealed body as SQL (a bound value), which the stored response's insert takes like a filled one.
  const body =
    claim && plan.secret ? sql`${await seal(c.env, "stored-responses", sealedFor(claim), text)}` : filled(text, made);
  const drafts = plan.events ?? [];
  const { ids, inserts: events } =
    drafts.length > 0
      ? insertEvents(orm, principalOf(c).customerId, drafts, Date.now(), made)
      : { ids: [], inserts: [] };

  // The stored response, under a key; or, without one, the body's made values read back.
  const response: BatchItem<"sqlite">[] = [];
  if (claim) {
    const now = new Date();
    if (claim.replacesExpired) response.push(deleteExpiredKey(orm, claim.principal, claim.key, now.toISOString()));
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString();
    const { principal, key, requestHash } = claim;
    const location = plan.location === undefined ? null : pathOf(path, plan.location);
    response.push(storeResponse(orm, { principal, key, requestHash, status: plan.status, expiresAt, location }, body));
  } else if (made.length > 0) {
    // A select rather than orm.all(): drizzle's D1 batch cannot bind parameters of raw SQL. Its FROM is
    // a template: drizzle selects from a table, and `(SELECT 1)` is the one row of none.
    response.push(orm.select({ body }).from(sql`(SELECT 1)`));
  }

  // A concurrent request with the same key that got there first makes this batch fail as a write
  // conflict (409); the Idempotency-Key check then answers with that request's response.
  let results: Record<"writes" | "events" | "response", unknown[]>;
  try {
    results = await batchNamed(orm, { writes: plan.writes, events, response });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) c.executionCtx.waitUntil(enqueueIfStored(c.env, ids));
    if (error instanceof WriteConflict) throw (await plan.refused?.[error.guard]?.()) ?? error;
    throw error;
  }

  const stored = (results.events as EventRow[][]).map((rows) => rows[0]!);
  if (stored.length > 0) c.executionCtx.waitUntil(enqueueEvents(c.env.EVENTS, stored));
  plan.after?.stored?.();

  if (plan.status === 204) return replyText<T>(c, 204, null);
  // The body with the batch's values in it: the stored response's (it returns its body), or the select's.
  const [filledBody] = (results.response.at(-1) ?? []) as { body: string }[];
  const answer = replyText<T>(c, plan.status, made.length > 0 ? filledBody!.body : text);
  if (plan.location !== undefined) answer.headers.set("Location", locationOf(c, pathOf(path, plan.location)));
  return answer;
}

/** The resource `id` under the route's `path`: what `Location` names, and the stored response keeps. */
const pathOf = (path: string, id: string): string => `${path}/${id}`;

/** `Location`: a resource's path, absolute (as answered, and as replayed: http/idempotency-key.ts). */
export const locationOf = (c: Context<AppEnv>, path: string): string => new URL(path, c.req.url).href;
