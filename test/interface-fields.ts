import API_MD from "../docs/api.md?raw";

// The field lists of the API's resources in their wire order, as docs/api.md part 1 gives them (from
// the interface document's part 2 tables and the API contract), copied here as the tests' own data so
// that the repository stands alone. test/shapes.test.ts holds the response schemas against them
// (`againstInterface`): a field the service adds beyond the interface is documented in docs/api.md, and
// needs no line here.
export const INTERFACE_FIELDS = {
  invoice: [
    "id",
    "type",
    "number",
    "state",
    "created_at",
    "updated_at",
    "booked_on",
    "service_period_start",
    "service_period_end",
    "creditor",
    "due_on",
    "paid_at",
    "cancellation_number",
    "cancelled_at",
    "gross_amount",
    "net_amount",
    "recipient",
    "orders",
    "reference",
    "cost_center",
    "payment_method",
  ],
  card_order: [
    "id",
    "state",
    "state_label",
    "created_at",
    "updated_at",
    "submitted_at",
    "production_started_at",
    "delivered_at",
    "is_cancellable",
    "customer",
    "description",
    "invoice_reference",
    "cost_center",
    "payment_method",
    "invoice",
    "production_invoice",
    "shipping_invoice",
    "voucher_category",
    "entries_count",
  ],
  card_order_entry: ["id", "type", "voucher_owner_id", "card_holder_name", "amount", "created_at", "updated_at"],
  event: ["id", "type", "created_at", "data"],
  webhook_endpoint: ["id", "type", "url", "event_types", "secret", "created_at"],
  // docs/api.md parts 13 and 14.
  billing_profile: [
    "type",
    "customer",
    "legal_name",
    "street",
    "postcode",
    "city",
    "country_code",
    "vat_id",
    "buyer_reference",
    "leitweg_id",
    "email",
    "direct_debit_iban",
    "direct_debit_bic",
    "direct_debit_mandate_reference",
    "direct_debit_mandate_signed_on",
    "document_language",
    "invoice_format",
    "invoice_delivery",
    "consumer",
    "updated_at",
  ],
  invoice_line: [
    "type",
    "position",
    "description",
    "quantity",
    "unit_price",
    "net_amount",
    "vat_category",
    "vat_percent",
    "card_order_entry_id",
  ],
  // docs/api.md part 15.
  bank_statement: [
    "id",
    "type",
    "statement_id",
    "account_iban",
    "from_date",
    "to_date",
    "state",
    "error",
    "transactions_count",
    "matched_count",
    "unmatched_count",
    "duplicate_count",
    "created_at",
    "processed_at",
  ],
  bank_transaction: [
    "id",
    "type",
    "bank_statement_id",
    "booked_on",
    "value_date",
    "credit_debit",
    "amount",
    "currency",
    "counterparty_name",
    "counterparty_iban",
    "end_to_end_id",
    "creditor_reference",
    "remittance_information",
    "state",
    "allocated_amount",
    "unapplied_amount",
    "customer",
  ],
  payment: [
    "id",
    "type",
    "invoice_id",
    "invoice_number",
    "amount",
    "method",
    "bank_transaction_id",
    "booked_on",
    "returned_at",
    "return_reason",
    "created_at",
  ],
  invoice_balance: [
    "type",
    "invoice_id",
    "payment_reference",
    "gross_amount",
    "allocated_amount",
    "open_amount",
    "charges_amount",
    "charges_open_amount",
  ],
  // docs/api.md part 17.
  invoice_delivery: [
    "id",
    "type",
    "invoice_id",
    "document",
    "reminder_id",
    "channel",
    "recipient",
    "format",
    "state",
    "attempts",
    "message_id",
    "error",
    "created_at",
    "sent_at",
    "updated_at",
  ],
  // docs/api.md part 18.
  reminder: [
    "id",
    "type",
    "invoice_id",
    "invoice_number",
    "level",
    "title",
    "issued_on",
    "pay_by",
    "default_since",
    "open_amount",
    "interest_percent",
    "interest_amount",
    "fee_amount",
    "total_amount",
    "created_at",
  ],
  dunning: [
    "type",
    "invoice_id",
    "state",
    "level",
    "default_since",
    "next_step_on",
    "held_reason",
    "charges_amount",
    "updated_at",
  ],
} as const;

/**
 * The JSON request bodies' fields, in their order in docs/api.md part 5: test/http-headers.test.ts
 * holds the OpenAPI document's request bodies against them.
 */
export const REQUEST_FIELDS = {
  "post /card_orders": ["voucher_category", "description", "invoice_reference", "cost_center", "payment_method"],
  "post /invoices": ["order_id", "reference"],
  "post /card_orders/{id}/entries": ["voucher_owner_id", "card_holder_name", "amount"],
} as const;

/**
 * The scopes of docs/api.md part 2, read from its table (section "Scopes"), so that a scope is added in
 * one place: test/auth.test.ts holds the routes' against them.
 */
export const SCOPES: readonly string[] = Array.from(
  API_MD.slice(API_MD.indexOf("\n### Scopes\n"), API_MD.indexOf("\n### Refusals\n")).matchAll(/^\| `([\w:]+)` \|/gm),
  (match) => match[1]!,
);

/** The field names docs/api.md's field tables give: `| 11 | \`description\` | ...` and `| \`description\` | ...`. */
const DOCUMENTED = new Set(Array.from(API_MD.matchAll(/^\|(?: \d+ \|)? `(\w+)` \|/gm), (match) => match[1]));

/**
 * `fields` (a schema's, in order) against the interface's `list`: the list's own, in `fields`' order (they
 * must be the list, as the interface's order is binding), and the others not documented in docs/api.md's
 * tables (there must be none: a field the service adds beyond the interface is documented there).
 */
export const againstInterface = (fields: readonly string[], list: readonly string[]) => ({
  interface: fields.filter((field) => list.includes(field)),
  undocumented: fields.filter((field) => !list.includes(field) && !DOCUMENTED.has(field)),
});
