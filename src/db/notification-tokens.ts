import { and, asc, eq, ne, notExists, or, sql } from "drizzle-orm";
import { keptTotal, pageReads, readPage } from "./keyset";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { lazily, param, queryBuilder as qb } from "./compiled";
import { keptLists, notificationTokens, type NotificationTokenRow } from "./schema";
import { advancedTimestamp } from "./timestamps";

const byDevice = (ownerId: string, deviceIdentifier: string) =>
  and(eq(notificationTokens.ownerId, ownerId), eq(notificationTokens.deviceIdentifier, deviceIdentifier));

/**
 * Registers `row.value` for one device, in one batch: a value belongs to one device of one owner, so
 * it is first taken away from wherever else it was registered; a new device of an owner who has
 * `maxDevices` already replaces the least recently updated one. A repeated registration keeps
 * `created_at`; `updated_at` advances, by a millisecond at least (in SQL, so that no read is needed
 * first).
 */
export function registerNotificationToken(orm: Database, row: NotificationTokenRow, maxDevices: number) {
  const { updatedAt, ownerId, deviceIdentifier } = notificationTokens;
  const leastRecent = qb
    .select({ rowid: sql`rowid` })
    .from(notificationTokens)
    .where(eq(ownerId, row.ownerId))
    .orderBy(asc(updatedAt), asc(deviceIdentifier))
    .limit(1);
  return [
    orm
      .delete(notificationTokens)
      .where(
        and(
          eq(notificationTokens.value, row.value),
          or(ne(ownerId, row.ownerId), ne(deviceIdentifier, row.deviceIdentifier)),
        ),
      ),
    orm
      .delete(notificationTokens)
      .where(
        and(
          sql`rowid = (${leastRecent})`,
          sql`${keptTotal(keptLists.devices, row.ownerId)} >= ${maxDevices}`,
          notExists(
            qb.select({ one: sql`1` }).from(notificationTokens).where(byDevice(row.ownerId, row.deviceIdentifier)),
          ),
        ),
      ),
    orm
      .insert(notificationTokens)
      .values(row)
      .onConflictDoUpdate({
        target: [notificationTokens.ownerId, notificationTokens.deviceIdentifier],
        set: {
          value: row.value,
          updatedAt: advancedTimestamp(updatedAt, row.updatedAt),
        },
      }),
  ] as const;
}

export function deleteNotificationToken(orm: Database, ownerId: string, deviceIdentifier: string) {
  return orm.delete(notificationTokens).where(byDevice(ownerId, deviceIdentifier));
}

/** A device as listed: never its token value. */
export type NotificationDeviceRow = Pick<NotificationTokenRow, "deviceIdentifier" | "createdAt" | "updatedAt">;

// An owner's devices are ordered by when they were first registered, then by identifier.
const listReads = lazily(() =>
  pageReads<NotificationDeviceRow>({
    table: notificationTokens,
    columns: {
      deviceIdentifier: notificationTokens.deviceIdentifier,
      createdAt: notificationTokens.createdAt,
      updatedAt: notificationTokens.updatedAt,
    },
    where: eq(notificationTokens.ownerId, param("owner")),
    total: keptTotal(keptLists.devices, param("owner")),
    key: [notificationTokens.createdAt, notificationTokens.deviceIdentifier],
  }),
);

/** The owner's devices, newest first, and how many (one round trip). */
export const listNotificationTokens = (db: RequestDatabase, ownerId: string, page: PageRequest) =>
  readPage(db, listReads(), { owner: ownerId }, page);
