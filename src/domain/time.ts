// Timestamps are `Date.toISOString()` strings, dates `YYYY-MM-DD`, all UTC (docs/api.md part 1).

export const isoDate = (at: Date): string => at.toISOString().slice(0, 10);

export const addDays = (at: Date, days: number): Date => new Date(at.getTime() + days * 86_400_000);

/**
 * The `updated_at` of a change: now, but always after the previous value, so that it advances on
 * every change even when two land within one millisecond. (db/timestamps.ts says the same in SQL.)
 */
export function nextTimestamp(previous: string, now = new Date()): string {
  return new Date(Math.max(now.getTime(), Date.parse(previous) + 1)).toISOString();
}
