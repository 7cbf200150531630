// CONTRACT part 2: the scopes a token can carry.
export const SCOPES = [
  "card_orders:read",
  "card_orders:write",
  "invoices:read",
  "invoices:write",
  "notification_tokens:write",
  "fulfilment",
] as const;

export type Scope = (typeof SCOPES)[number];

/** Who is calling, from a verified token. */
export interface Principal {
  /** `sub`: for `/voucher_owners/me/...` the voucher owner's id. */
  sub: string;
  /** `customer_id`: the tenant whose card orders and invoices the caller works on. */
  customerId: string | null;
  scopes: ReadonlySet<string>;
}
