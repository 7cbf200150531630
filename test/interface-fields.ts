// The field lists of the API's resources in their wire order, as the interface document (its part 2
// tables) and the API contract give them, copied here as the tests' own data so that the repository
// stands alone. test/shapes.test.ts holds the response schemas against them.
export const INTERFACE_FIELDS = {
  invoice: ["id", "type", "number", "state", "created_at", "updated_at", "booked_on", "service_period_start", "service_period_end", "creditor", "due_on", "paid_at", "cancellation_number", "cancelled_at", "gross_amount", "net_amount", "recipient", "orders", "reference", "cost_center", "payment_method"],
  card_order: ["id", "state", "state_label", "created_at", "updated_at", "submitted_at", "production_started_at", "delivered_at", "is_cancellable", "customer", "description", "invoice_reference", "cost_center", "payment_method", "invoice", "production_invoice", "shipping_invoice", "voucher_category", "entries_count"],
  card_order_entry: ["id", "type", "voucher_owner_id", "card_holder_name", "amount", "created_at", "updated_at"],
  event: ["id", "type", "created_at", "data"],
  webhook_endpoint: ["id", "type", "url", "event_types", "secret", "created_at"],
} as const;
