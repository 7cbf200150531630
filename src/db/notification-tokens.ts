import { and, asc, count, desc, eq, ne, notExists, or, sql } from "drizzle-orm";
import type { PageRequest } from "../pagination/query";
import type { Database, RequestDatabase } from "./client";
import { compile, lazily, param, queryBuilder as qb } from "./compiled";
import { notificationTokens, type NotificationTokenRow } from "./schema";
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
  const leastRecent = qb.select({ rowid: sql`rowid` }).from(notificationTokens).where(eq(ownerId, row.ownerId)).orderBy(asc(updatedAt), asc(deviceIdentifier)).limit(1);
  return [
    orm
      .delete(notificationTokens)
      .where(and(eq(notificationTokens.value, row.value), or(ne(ownerId, row.ownerId), ne(deviceIdentifier, row.deviceIdentifier)))),
    orm
      .delete(notificationTokens)
      .where(
        and(
          sql`rowid = (${leastRecent})`,
          sql`(SELECT count(*) FROM ${notificationTokens} WHERE ${ownerId} = ${row.ownerId}) >= ${maxDevices}`,
          notExists(qb.select({ one: sql`1` }).from(notificationTokens).where(byDevice(row.ownerId, row.deviceIdentifier))),
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

const listReads = lazily(() => ({
  page: compile<NotificationDeviceRow>(
    qb
      .select({ deviceIdentifier: notificationTokens.deviceIdentifier, createdAt: notificationTokens.createdAt, updatedAt: notificationTokens.updatedAt })
      .from(notificationTokens)
      .where(eq(notificationTokens.ownerId, param("owner")))
      .orderBy(desc(notificationTokens.createdAt), desc(notificationTokens.deviceIdentifier))
      .limit(param("limit"))
      .offset(param("offset")),
    { deviceIdentifier: "device_identifier", createdAt: "created_at", updatedAt: "updated_at" },
  ),
  // Counts the owner's devices only: as many rows as the owner registered.
  total: compile<{ total: number }>(qb.select({ total: count().as("total") }).from(notificationTokens).where(eq(notificationTokens.ownerId, param("owner"))), { total: "total" }),
}));

/** The owner's devices, newest first; never the token values. */
export async function listNotificationTokens(db: RequestDatabase, ownerId: string, page: PageRequest) {
  const { page: pageRead, total: totalRead } = listReads();
  const values = { owner: ownerId, limit: page.pageSize, offset: page.offset };
  const [rows, [total]] = await db.readBoth([pageRead, values], [totalRead, values]);
  return { rows, total: total?.total ?? 0 };
}
