import { MAX_ENTRIES_PER_ORDER } from "../../domain/card-orders";
import type { RouteDocs } from "../../http/route";

const DRAFT_ONLY = "Entries are added and deleted only while the card order is draft (otherwise 409 invalid_state).";

/** The prose of entries.routes.ts in the OpenAPI document, by operationId. */
export const entryDocs: Record<string, RouteDocs> = {
  createCardOrderEntry: {
    tag: "The cards of a draft card order: who gets each and the amount loaded on it.",
    summary: "Add a voucher card to a draft card order",
    description:
      `${DRAFT_ONLY} An order holds at most ${MAX_ENTRIES_PER_ORDER} entries (the next one: 409 conflict). ` +
      "`amount` is a decimal string; a JSON number is refused. Moves the order's entries_count and updated_at.",
    success: "The new entry, as a single-page list envelope.",
  },
  listCardOrderEntries: {
    summary: "List a card order's entries, newest first",
    description:
      "Pages the order's entries, newest first (created_at, then id, descending); " +
      "total_entries is the order's entries_count.",
    success: "A page of entries.",
  },
  deleteCardOrderEntry: {
    summary: "Remove a voucher card from a draft card order",
    description:
      `${DRAFT_ONLY} An entry the order does not have answers 404, ` + "also for an order that is no longer a draft.",
    success: "Removed.",
  },
};
