// The back office's examples (docs/api.md parts 15-17) for the OpenAPI document (./examples.ts): bank
// statements and transactions, direct debit collections, document deliveries, as the README's session shows them.

export const INVOICE_ID = "bc3ab9ab-198e-4f57-b802-090a3396c2d4";
const STATEMENT_ID = "8dd3d178-ddad-4e3b-b921-3c939ad86ac5";
export const TRANSACTION_ID = "b96bc805-e197-4e6e-b4bb-3417eef94495";

/** Each back-office response component's example, by component name. */
export const BACK_OFFICE: Record<string, unknown> = {
  BankStatement: {
    id: STATEMENT_ID,
    type: "bank_statement",
    statement_id: "EXAMPLE-STMT-1",
    account_iban: "DE02120300000000202051",
    from_date: "2026-11-24",
    to_date: "2026-11-24",
    state: "processed",
    error: null,
    transactions_count: 1,
    matched_count: 1,
    unmatched_count: 0,
    duplicate_count: 0,
    created_at: "2026-11-27T16:04:41.419Z",
    processed_at: "2026-11-27T16:04:41.557Z",
  },
  BankTransaction: {
    id: TRANSACTION_ID,
    type: "bank_transaction",
    bank_statement_id: STATEMENT_ID,
    booked_on: "2026-11-24",
    value_date: "2026-11-24",
    credit_debit: "credit",
    amount: "75.05",
    currency: "EUR",
    counterparty_name: "Acme Kantinen GmbH",
    counterparty_iban: "DE89370400440532013000",
    end_to_end_id: null,
    creditor_reference: null,
    remittance_information: "Team lunch cards",
    state: "matched",
    allocated_amount: "75.05",
    unapplied_amount: "0.00",
    customer: "acme",
  },
  InvoiceDelivery: {
    id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
    type: "invoice_delivery",
    invoice_id: INVOICE_ID,
    document: "invoice",
    reminder_id: null,
    channel: "email",
    recipient: "rechnung@acme.example",
    format: "ubl",
    state: "delivered",
    attempts: 1,
    message_id: "<0d6f1f3a-7a1b-4c2e-9d8f-2b3c4d5e6f70@voucher-cards.example>",
    error: null,
    created_at: "2026-11-27T16:04:01.802Z",
    sent_at: "2026-11-27T16:04:02.914Z",
    updated_at: "2026-11-27T16:04:09.120Z",
  },
  DirectDebitCollection: {
    id: "5b0f7a52-3c1e-4b8e-9f2d-6a4c8e1d2b37",
    type: "direct_debit_collection",
    collection_date: "2026-12-11",
    message_id: "DD5B0F7A523C1E4B8E9F2D6A4C8E",
    transactions_count: 1,
    control_sum: "40.00",
    state: "pending",
    created_at: "2026-11-27T16:04:42.013Z",
  },
};
