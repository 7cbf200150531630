import { and, count, desc, eq, ne, or, sql } from "drizzle-orm";
import type { PageRequest } from "../pagination";
import type { Database } from "./client";
import { notificationTokens, type NotificationTokenRow } from "./schema";

const byDevice = (ownerId: string, deviceIdentifier: string) =>
  and(eq(notificationTokens.ownerId, ownerId), eq(notificationTokens.deviceIdentifier, deviceIdentifier));

/**
 * Registers `row.value` for one device: a value belongs to one device of one owner, so it is first
 * taken away from wherever else it was registered. Both statements go into one batch. A repeated
 * registration keeps `created_at`; `updated_at` advances, by a millisecond at least (the rule of
 * nextTimestamp in domain/lifecycle.ts, here in SQL so that no read is needed first).
 */
export function registerNotificationToken(orm: Database, row: NotificationTokenRow) {
  const { updatedAt } = notificationTokens;
  return [
    orm
      .delete(notificationTokens)
      .where(and(eq(notificationTokens.value, row.value), or(ne(notificationTokens.ownerId, row.ownerId), ne(notificationTokens.deviceIdentifier, row.deviceIdentifier)))),
    orm
      .insert(notificationTokens)
      .values(row)
      .onConflictDoUpdate({
        target: [notificationTokens.ownerId, notificationTokens.deviceIdentifier],
        set: {
          value: row.value,
          updatedAt: sql`CASE WHEN ${row.updatedAt} > ${updatedAt} THEN ${row.updatedAt} ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ${updatedAt}, '+0.001 seconds') END`,
        },
      }),
  ] as const;
}

export function deleteNotificationToken(orm: Database, ownerId: string, deviceIdentifier: string) {
  return orm.delete(notificationTokens).where(byDevice(ownerId, deviceIdentifier));
}

/** The owner's devices, newest first; never the token values. */
export async function listNotificationTokens(orm: Database, ownerId: string, page: PageRequest) {
  const [rows, total] = await orm.batch([
    orm
      .select({ deviceIdentifier: notificationTokens.deviceIdentifier, createdAt: notificationTokens.createdAt, updatedAt: notificationTokens.updatedAt })
      .from(notificationTokens)
      .where(eq(notificationTokens.ownerId, ownerId))
      .orderBy(desc(notificationTokens.createdAt), desc(notificationTokens.deviceIdentifier))
      .limit(page.pageSize)
      .offset(page.offset),
    // Counts the owner's devices only: as many rows as the owner registered.
    orm.select({ total: count() }).from(notificationTokens).where(eq(notificationTokens.ownerId, ownerId)),
  ]);
  return { rows, total: total[0]?.total ?? 0 };
}
