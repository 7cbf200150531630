/**
 * A scope a token can carry and a route can ask for (docs/api.md part 2): `<resource>:read`,
 * `<resource>:write`, or the back office's `fulfilment`. The scopes there are are those the routes
 * ask for (the OpenAPI document lists them from the route table; test/auth.test.ts holds them against
 * docs/api.md).
 */
export type Scope = `${string}:${"read" | "write"}` | "fulfilment";

/** Who is calling, from a verified token. */
export interface Principal {
  /** `sub`: for `/voucher_owners/me/...` the voucher owner's id. */
  sub: string;
  /** `customer_id`: the tenant whose card orders and invoices the caller works on. */
  customerId: string | null;
  scopes: ReadonlySet<string>;
}

/** What a route asks of its caller's token. */
export interface AccessRequirement {
  scope: Scope;
  /** The route works on a customer's resources, so the token must name one. */
  tenant: boolean;
  /** A scope that will do instead (the back office's, across customers: the handler tells them apart). */
  alternative?: Scope;
}

type WithPrincipal = { get(key: "principal"): Principal | undefined };

/** The caller of an authenticated route. */
export function principalOf(c: WithPrincipal): Principal {
  // c.get, not c.var: Hono builds c.var as a new object on every read.
  const principal = c.get("principal");
  if (!principal) throw new Error("principalOf() used on a route without authenticate()");
  return principal;
}

/** The tenant of a route mounted with `tenant: true`. */
export function customerOf(c: WithPrincipal): string {
  const { customerId } = principalOf(c);
  if (customerId === null) throw new Error("customerOf() used on a route without tenant: true");
  return customerId;
}
