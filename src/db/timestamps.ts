import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * The `updated_at` of a change made without reading the row first: `now`, or a millisecond after
 * the stored value when that is not earlier (the rule of nextTimestamp in domain/time.ts, in SQL).
 */
export const advancedTimestamp = (column: SQLiteColumn, now: string): SQL =>
  sql`CASE WHEN ${now} > ${column} THEN ${now} ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ${column}, '+0.001 seconds') END`;
