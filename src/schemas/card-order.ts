import * as z from "zod/mini";
import type { CardOrderRow } from "../db/schema";
import {
  CARD_ORDER_STATE_LABELS,
  cardOrderLifecycle,
  PAYMENT_METHODS,
  VOUCHER_CATEGORIES,
} from "../domain/card-orders";
import { allows } from "../domain/lifecycle";
import { dateTime, oneOf, optionalText, requestBody } from "./formats";
import { named, namedResponse } from "./registry";

const InvoiceLink = namedResponse("InvoiceLink", () =>
  z.strictObject({ id: z.string(), type: z.literal("invoice"), number: z.string() }),
);

/** A card order on the wire: the fields of docs/api.md part 1, in its order. */
export const CardOrder = namedResponse("CardOrder", () =>
  z.strictObject({
    id: z.string(),
    state: z.enum(cardOrderLifecycle.states),
    state_label: z.enum(Object.values(CARD_ORDER_STATE_LABELS)),
    created_at: dateTime(),
    updated_at: dateTime(),
    submitted_at: z.nullable(dateTime()),
    production_started_at: z.nullable(dateTime()),
    delivered_at: z.nullable(dateTime()),
    is_cancellable: z.boolean(),
    customer: z.nullable(z.string()),
    description: z.nullable(z.string()),
    invoice_reference: z.nullable(z.string()),
    cost_center: z.nullable(z.string()),
    payment_method: z.nullable(z.enum(PAYMENT_METHODS)),
    invoice: z.nullable(InvoiceLink),
    production_invoice: z.nullable(InvoiceLink),
    shipping_invoice: z.nullable(InvoiceLink),
    voucher_category: z.enum(VOUCHER_CATEGORIES),
    entries_count: z.int(),
  }),
);

type CardOrderBody = z.input<typeof CardOrder>;

/** A new card order: its free texts at most 255 characters. */
export const CreateCardOrder = named(
  "CreateCardOrder",
  requestBody({
    voucher_category: oneOf(VOUCHER_CATEGORIES),
    description: optionalText(255),
    invoice_reference: optionalText(255),
    cost_center: optionalText(255),
    payment_method: oneOf(PAYMENT_METHODS),
  }),
);

const link = (id: string | null, number: string | null): CardOrderBody["invoice"] =>
  id === null ? null : { id, type: "invoice", number: number ?? "" };

export function toCardOrder(row: CardOrderRow): CardOrderBody {
  return {
    id: row.id,
    state: row.state,
    state_label: CARD_ORDER_STATE_LABELS[row.state],
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    submitted_at: row.submittedAt,
    production_started_at: row.productionStartedAt,
    delivered_at: row.deliveredAt,
    is_cancellable: allows(cardOrderLifecycle, row.state, "cancel"),
    customer: row.customerId,
    description: row.description,
    invoice_reference: row.invoiceReference,
    cost_center: row.costCenter,
    payment_method: row.paymentMethod,
    invoice: link(row.invoiceId, row.invoiceNumber),
    production_invoice: link(row.productionInvoiceId, row.productionInvoiceNumber),
    shipping_invoice: link(row.shippingInvoiceId, row.shippingInvoiceNumber),
    voucher_category: row.voucherCategory,
    entries_count: row.entriesCount,
  };
}
