import { and, eq, inArray, lte, sql, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { Database } from "./client";
import { compile, lazily, preparer, param, queryBuilder as qb } from "./compiled";
import { idempotencyKeys } from "./schema";

type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
export type StoredResponse = Pick<IdempotencyKeyRow, "requestHash" | "status" | "body" | "expiresAt" | "location">;

/** A request made under an Idempotency-Key: whose key, and the request it stands for. */
export interface IdempotencyClaim {
  principal: string;
  key: string;
  requestHash: string;
  /** An expired response still holds the key: the write frees it first. */
  replacesExpired: boolean;
}

/** The row a stored response is sealed for (writes/commit.ts): it opens in no other principal's or key's. */
export const sealedFor = ({ principal, key }: Pick<IdempotencyClaim, "principal" | "key">): string =>
  JSON.stringify([principal, key]);

const byKey = (principal: string, key: string) =>
  and(eq(idempotencyKeys.principal, principal), eq(idempotencyKeys.key, key));

/** The response stored under a principal's key (values: principal, key). */
export const storedResponse = lazily(() => {
  const { requestHash, status, body, expiresAt, location } = idempotencyKeys;
  return compile<StoredResponse>(
    preparer()
      .select({ requestHash, status, body, expiresAt, location })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.principal, param("principal")), eq(idempotencyKeys.key, param("key"))))
      .prepare(),
  );
});

/** Stores a response; `body` is SQL so that it can hold values the same batch produced. */
export function storeResponse(
  orm: Database,
  row: Omit<IdempotencyKeyRow, "body" | "location"> & Partial<Pick<IdempotencyKeyRow, "location">>,
  body: SQL,
) {
  return orm
    .insert(idempotencyKeys)
    .values({ ...row, body })
    .returning({ body: idempotencyKeys.body });
}

/** Frees a key whose stored response has expired but not yet been swept away. */
export function deleteExpiredKey(orm: Database, principal: string, key: string, now: string) {
  return orm.delete(idempotencyKeys).where(and(byKey(principal, key), lte(idempotencyKeys.expiresAt, now)));
}

const SWEEP_CHUNK = 500;
/** SQLite's own key of a row: a chunk of rows to delete is chosen by it. */
const rowid = sql<number>`rowid`;

/** For the Cron Trigger: deletes expired responses in bounded chunks, returning how many. */
export async function deleteExpiredIdempotencyKeys(binding: D1Database, now = new Date()): Promise<number> {
  const orm = drizzle(binding);
  let deleted = 0;
  for (;;) {
    const expired = qb
      .select({ rowid })
      .from(idempotencyKeys)
      .where(lte(idempotencyKeys.expiresAt, now.toISOString()))
      .limit(SWEEP_CHUNK);
    const { meta } = await orm.delete(idempotencyKeys).where(inArray(rowid, expired)).run();
    deleted += meta.changes;
    if (meta.changes < SWEEP_CHUNK) return deleted;
  }
}
