// docs/api.md part 18: what travels through the dunning queue (DUNNING). A scan reads one phase's
// candidates after a key (their day and id) and queues them in chunks; a chunk is invoices for a run day.

/** A candidate's place in its scan: its day and id, the keyset the next page starts after. */
export type ScanKey = readonly [string, string];
/** new: open invoices not yet overdue, by due day; active: dunnings whose next step is due, by its day. */
type ScanPhase = "new" | "active";

export type DunningMessage =
  | { kind: "dunning_scan"; day: string; phase: ScanPhase; after: ScanKey | null }
  | { kind: "dunning_chunk"; day: string; invoiceIds: string[] };
