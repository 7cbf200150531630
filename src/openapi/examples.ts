import * as z from "zod/mini";
import { components } from "../schemas/registry";
import { BACK_OFFICE, INVOICE_ID, TRANSACTION_ID } from "./examples-back-office";
import { complete, picked } from "./examples-derived";

// Real examples for the OpenAPI document (docs/api.md part 5, the README's session): one per response
// component and request body, so that /docs shows answers as the service gives them rather than a generator's "string"
// and zeros. Each is parsed with its component's schema when the document is built (a field added,
// renamed or retyped without its example fails the build), and lists are built from their items.

const HOST = "https://billing.example.com";
const ORDER_ID = "44d1d44a-e4a5-4c7f-9a68-9ba24c5a84ac";
const AT = "2026-11-27T16:04:00.530Z";

const cardOrder = {
  id: ORDER_ID,
  state: "submitted",
  state_label: "Submitted",
  created_at: AT,
  updated_at: "2026-11-27T16:04:01.210Z",
  submitted_at: "2026-11-27T16:04:01.210Z",
  production_started_at: null,
  delivered_at: null,
  is_cancellable: true,
  customer: "acme",
  description: "Team lunch cards",
  invoice_reference: null,
  cost_center: "CC-7",
  payment_method: "bank_transfer",
  invoice: { id: INVOICE_ID, type: "invoice", number: "INV-2026-000001" },
  production_invoice: null,
  shipping_invoice: null,
  voucher_category: "meal",
  entries_count: 2,
};
const invoice = {
  id: INVOICE_ID,
  type: "invoice",
  number: "INV-2026-000001",
  state: "open",
  created_at: "2026-11-27T16:04:01.567Z",
  updated_at: "2026-11-27T16:04:01.567Z",
  booked_on: "2026-11-27",
  service_period_start: null,
  service_period_end: null,
  creditor: "Voucher Cards GmbH",
  due_on: "2026-12-11",
  paid_at: null,
  cancellation_number: "",
  cancelled_at: null,
  gross_amount: "75.05",
  net_amount: "75.05",
  recipient: "acme",
  orders: [{ id: ORDER_ID, type: "card_order", state: "submitted" }],
  reference: "PO-4711",
  cost_center: "CC-7",
  payment_method: "bank_transfer",
};
const billingProfile = {
  type: "billing_profile",
  customer: "acme",
  legal_name: "Acme Kantinen GmbH",
  street: "Hauptstraße 5",
  postcode: "80331",
  city: "München",
  country_code: "DE",
  vat_id: "DE987654321",
  buyer_reference: null,
  leitweg_id: "04011000-12345-03",
  email: "rechnung@acme.example",
  direct_debit_iban: "DE89370400440532013000",
  direct_debit_bic: null,
  direct_debit_mandate_reference: "ACME-2025-01",
  direct_debit_mandate_signed_on: "2025-06-02",
  document_language: "de",
  invoice_format: null,
  invoice_delivery: "email",
  consumer: false,
  updated_at: "2026-11-27T16:04:00.343Z",
};
const payment = {
  id: "0b6f3c8e-5a1d-4f2e-9c7b-3d8a2e1f4c60",
  type: "payment",
  invoice_id: INVOICE_ID,
  invoice_number: "INV-2026-000001",
  amount: "75.05",
  method: "bank_transfer",
  bank_transaction_id: TRANSACTION_ID,
  booked_on: "2026-11-24",
  returned_at: null,
  return_reason: null,
  created_at: "2026-11-27T16:04:41.557Z",
};
const webhookEndpoint = {
  id: "3593e787-8ea7-4656-898b-3b534cc76441",
  type: "webhook_endpoint",
  url: "https://hooks.acme.example/billing",
  event_types: ["invoice.created", "invoice.paid"],
  created_at: "2026-11-27T16:03:58.032Z",
};

/** The resources an event is about (domain/events.ts `componentOf`), by component name. */
const RESOURCES: Record<string, unknown> = {
  CardOrder: cardOrder,
  Invoice: invoice,
  BillingProfile: billingProfile,
  Payment: payment,
  InvoiceDelivery: BACK_OFFICE.InvoiceDelivery,
  Reminder: BACK_OFFICE.Reminder,
  Dunning: BACK_OFFICE.Dunning,
};

/** An event of `type` as a webhook endpoint receives it, about the example of `component`. */
export const eventExample = (type: string, component: string) => ({
  id: "91f6f9ad-cb60-4a07-a48c-7a0928a287f6",
  type,
  created_at: "2026-11-27T16:04:01.567Z",
  // A resource no event of the document's own examples carries is its item's (ITEMS is made by then).
  data: RESOURCES[component] ?? ITEMS[component],
});

/** Each response component's example, by component name. */
const ITEMS: Record<string, unknown> = {
  CardOrder: cardOrder,
  CardOrderEntry: {
    id: "4dc1dc0b-c18d-43eb-89fd-696dd65418cf",
    type: "card_order_entry",
    voucher_owner_id: "owner-42",
    card_holder_name: "Ada Lovelace",
    amount: "50.00",
    created_at: "2026-11-27T16:04:00.890Z",
    updated_at: "2026-11-27T16:04:00.890Z",
  },
  Invoice: invoice,
  InvoiceLink: cardOrder.invoice,
  InvoiceLine: {
    type: "invoice_line",
    position: 1,
    description: "Gutscheinkarte Ada Lovelace",
    quantity: 1,
    unit_price: "50.00",
    net_amount: "50.00",
    vat_category: "O",
    vat_percent: "0",
    card_order_entry_id: "4dc1dc0b-c18d-43eb-89fd-696dd65418cf",
  },
  InvoiceBalance: {
    type: "invoice_balance",
    invoice_id: INVOICE_ID,
    payment_reference: "RF94INV2026000001",
    gross_amount: "75.05",
    allocated_amount: "75.05",
    open_amount: "0.00",
    charges_amount: "0.00",
    charges_open_amount: "0.00",
  },
  BillingProfile: billingProfile,
  Payment: payment,
  Event: eventExample("invoice.created", "Invoice"),
  NotificationDevice: { device_identifier: "phone", created_at: AT, updated_at: AT },
  WebhookEndpoint: webhookEndpoint,
  NewWebhookEndpoint: {
    id: webhookEndpoint.id,
    type: webhookEndpoint.type,
    url: webhookEndpoint.url,
    event_types: webhookEndpoint.event_types,
    secret: "whsec_jBVEhV3+mGESm2xl5bBBrxK/jkJWg8sNXiVd9I9rDoA=",
    created_at: webhookEndpoint.created_at,
  },
  ...BACK_OFFICE,
};

/** Each request body's example, as the README's session sends it. */
const { type: _, customer: __, updated_at: ___, direct_debit_bic: ____, ...profileFields } = billingProfile;
const REQUESTS: Record<string, unknown> = {
  CreateCardOrder: {
    voucher_category: "meal",
    description: "Team lunch cards",
    cost_center: "CC-7",
    payment_method: "bank_transfer",
  },
  CreateCardOrderEntry: { voucher_owner_id: "owner-42", card_holder_name: "Ada Lovelace", amount: "50.00" },
  CreateInvoice: { order_id: ORDER_ID, reference: "PO-4711" },
  UpdateBillingProfile: profileFields,
  CreateWebhookEndpoint: { url: webhookEndpoint.url, event_types: webhookEndpoint.event_types },
  RegisterNotificationToken: { value: "fcm-registration-token-of-the-device", device_identifier: "phone" },
  CreateAllocation: { invoice_id: INVOICE_ID, amount: "75.05" },
  CreateDirectDebitCollection: { collection_date: "2026-12-11" },
  CreateInvoiceDelivery: { recipient: "buchhaltung@acme.example", format: "pdf" },
  PutDunning: { hold: true, reason: "The buyer disputes two of the cards (e-mail of 2026-12-20)." },
};

/** Each list component: the path its example page is of, and its item's component. */
const LISTS: Record<string, [path: string, item: string]> = {
  CardOrderList: ["/card_orders", "CardOrder"],
  CardOrderEntryList: [`/card_orders/${ORDER_ID}/entries`, "CardOrderEntry"],
  InvoiceList: ["/invoices", "Invoice"],
  InvoiceLineList: [`/invoices/${INVOICE_ID}/lines`, "InvoiceLine"],
  EventList: ["/events", "Event"],
  NotificationDeviceList: ["/voucher_owners/me/notification_tokens", "NotificationDevice"],
  WebhookEndpointList: ["/webhook_endpoints", "WebhookEndpoint"],
  NewWebhookEndpointList: ["/webhook_endpoints", "NewWebhookEndpoint"],
  BankStatementList: ["/bank_statements", "BankStatement"],
  BankTransactionList: ["/bank_transactions", "BankTransaction"],
  PaymentList: ["/payments", "Payment"],
  InvoicePaymentList: [`/invoices/${INVOICE_ID}/payments`, "Payment"],
  DirectDebitCollectionList: ["/direct_debit_collections", "DirectDebitCollection"],
  InvoiceDeliveryList: [`/invoices/${INVOICE_ID}/deliveries`, "InvoiceDelivery"],
  ReminderList: [`/invoices/${INVOICE_ID}/reminders`, "Reminder"],
};

/** A one-page list of `item`, as a list of `path` answers it (docs/api.md part 4). */
const pageOf = (path: string, item: unknown) => ({
  meta: { total_pages: 1, current_page: 1, page_size: 25, total_entries: 1 },
  data: [item],
  links: { self: HOST + path, first: HOST + path, last: HOST + path, prev: null, next: null },
});

function examples(): Record<string, unknown> {
  const all: Record<string, unknown> = {
    ...ITEMS,
    ...REQUESTS,
    PageMeta: pageOf("/card_orders", cardOrder).meta,
    PageLinks: pageOf("/card_orders", cardOrder).links,
    Health: { status: "ok" },
    ServiceIndex: { links: { docs: `${HOST}/docs`, openapi: `${HOST}/openapi.json` } },
    ErrorEnvelope: {
      errors: [
        {
          detail: 'amount must be a decimal string such as "25.00", not a number.',
          code: "validation_failed",
          source: { pointer: "/amount" },
        },
      ],
    },
  };
  for (const [list, [path, item]] of Object.entries(LISTS)) all[list] = pageOf(path, ITEMS[item]);
  const items = { ...ITEMS, ...picked(ITEMS, all) };
  for (const [id, example] of Object.entries(items)) all[id] ??= example;
  for (const [id, example] of Object.entries(items)) all[`${id}Data`] ??= { data: example };
  return all;
}

/**
 * The examples of the components `schemas` holds (JSON Schemas by component name), each parsed with its
 * zod schema first: an example that is not a valid answer, or of no component, throws.
 */
export function withExamples(schemas: Record<string, Record<string, unknown>>): void {
  for (const [id, example] of Object.entries(ITEMS)) {
    const schema = components._idmap.get(id);
    if (schema !== undefined) complete(schema, example as Record<string, unknown>);
  }
  for (const [id, example] of Object.entries(examples())) {
    const schema = components._idmap.get(id);
    if (schema === undefined) {
      if (id.endsWith("Data")) continue; // an item without a `{data}` component of its own
      throw new Error(`OpenAPI example of ${id}: no such component`);
    }
    const parsed = z.safeParse(schema, example);
    if (!parsed.success) throw new Error(`OpenAPI example of ${id} is not a valid ${id}: ${parsed.error.message}`);
    schemas[id]!.examples = [example];
  }
}
