import type { RouteDocs } from "../../http/route";

/** The prose of direct-debit-collections.routes.ts in the OpenAPI document, by operationId. */
export const directDebitCollectionDocs: Record<string, RouteDocs> = {
  createDirectDebitCollection: {
    summary: "Collect the due direct debits",
    description:
      "Takes every open direct-debit invoice due on or before `collection_date` that no pending collection " +
      "holds (at most 1,000, the earliest due first), with its customer's mandate, into one SEPA Core " +
      "collection. `collection_date`: a TARGET2 business day at least DIRECT_DEBIT_LEAD_DAYS (default 1) " +
      "TARGET2 days ahead, today counting when it is one; else 422. No invoice to collect: 409 conflict, " +
      "nothing created. Its pain.008 file is GET .../document.",
    success: "The new collection.",
  },
  listDirectDebitCollections: {
    summary: "List the direct debit collections, newest first",
    description: "Every collection made, pending until each of its debits is paid or returned.",
    success: "A page of collections.",
  },
  getDirectDebitCollection: {
    summary: "Get a direct debit collection",
    description: "Its date, message id, count, control sum and state.",
    success: "The collection.",
  },
  getDirectDebitCollectionDocument: {
    summary: "Download a collection's pain.008 file",
    description:
      "The ISO 20022 pain.008.001.08 file (SEPA Core) to hand to the seller's bank: the same bytes on every " +
      "request, kept once written. A strong ETag; If-None-Match answers 304.",
    success: "The pain.008 file, as an attachment named after its message id.",
  },
};
