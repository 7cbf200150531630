/** What travels through the statements queue: which statement to carry on with (src/payments/statements.ts). */
export interface StatementMessage {
  kind: "statement";
  statementId: string;
}

/** A processing statement that has not moved this long lost its message: the cron sends it again. */
export const STALLED_MS = 5 * 60_000;
