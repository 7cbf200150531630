import { getTableColumns } from "drizzle-orm";
import { cardOrders, type CardOrderRow } from "../../src/db/schema";

/** Every nullable column of card_orders, null: a nullable column added to the table is null here too. */
const NULLS = Object.fromEntries(
  Object.entries(getTableColumns(cardOrders))
    .filter(([, column]) => !column.notNull)
    .map(([name]) => [name, null]),
);

/** The columns that may be null. */
type NullableColumn = { [K in keyof CardOrderRow]: null extends CardOrderRow[K] ? K : never }[keyof CardOrderRow];

/**
 * A draft card order's row as the service stores it, `fields` over it: for the tests that write rows
 * straight into D1 (test/db-queries.test.ts, test/guards.test.ts). The compiler names a new column
 * here only when it has no null to take.
 */
export function draftOrderRow(customerId: string, fields: Partial<CardOrderRow> = {}): CardOrderRow {
  const at = "2026-01-01T00:00:00.000Z";
  const row: Omit<CardOrderRow, NullableColumn> = {
    id: crypto.randomUUID(),
    customerId,
    state: "draft",
    createdAt: at,
    updatedAt: at,
    paymentMethod: "bank_transfer",
    voucherCategory: "gift",
    entriesCount: 0,
    entriesAmount: 0,
  };
  return { ...(NULLS as Pick<CardOrderRow, NullableColumn>), ...row, ...fields };
}
