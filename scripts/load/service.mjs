// What the load run takes from src/ rather than keeping a copy: the resources' fields and states, and
// which fields their lifecycles' transitions move.
import { importSource } from "../import-source.mjs";

const { CardOrder, Invoice, cardOrderLifecycle, invoiceLifecycle } = await importSource(
  [
    'export { CardOrder } from "./src/schemas/card-order";',
    'export { Invoice } from "./src/schemas/invoice";',
    'export { cardOrderLifecycle } from "./src/domain/card-orders";',
    'export { invoiceLifecycle } from "./src/domain/invoices";',
  ].join("\n"),
);

export const CARD_ORDER_STATES = cardOrderLifecycle.states;
export const INVOICE_STATES = invoiceLifecycle.states;

// Fields another request changes without an answer that shows this resource: checked on their own.
export const LINKED_FIELDS = { card_order: ["updated_at", "invoice", "entries_count"], invoice: ["orders"] };
// Fields that show the state, or a link a transition makes (start_production's production invoice).
const SHOWS_STATE = {
  card_order: ["state_label", "is_cancellable", "production_invoice", "shipping_invoice"],
  invoice: ["cancellation_number"],
};

const snake = (name) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
// A resource's schema is a named z.lazy of its object (src/schemas/resource.ts).
const fieldsOf = (schema) => Object.keys(schema._zod.def.getter()._zod.def.shape);

/** Fields no change alters, by resource: all but the state, updated_at, transition stamps and links. */
export const FIXED_FIELDS = Object.fromEntries(
  [
    ["card_order", CardOrder, cardOrderLifecycle],
    ["invoice", Invoice, invoiceLifecycle],
  ].map(([kind, schema, { transitions }]) => {
    const fields = fieldsOf(schema);
    const stamps = Object.values(transitions).flatMap(({ stamp }) => (stamp ? [snake(stamp)] : []));
    const moving = ["state", "updated_at", ...stamps, ...SHOWS_STATE[kind], ...LINKED_FIELDS[kind]];
    const unknown = moving.filter((field) => !fields.includes(field));
    if (unknown.length) throw new Error(`scripts/load/service.mjs names ${kind} fields src/ has not: ${unknown}`);
    return [kind, fields.filter((field) => !moving.includes(field))];
  }),
);
