// The reconciliation bench's open invoices, written straight into the local D1 before the Workers start
// (scripts/seed-invoices.mjs): the plan's, a minute apart from 1 October, due 14 days later, a bank
// transfer each.
import { writeFileSync } from "node:fs";
import { openInvoicesSql } from "../../scripts/seed-invoices.mjs";

export function writeSeed(path, plan, creditorName) {
  const invoices = plan.invoices.map((invoice) => {
    const createdAt = new Date(Date.UTC(2026, 9, 1) + invoice.index * 60_000).toISOString();
    const dueOn = new Date(Date.parse(createdAt.slice(0, 10)) + 14 * 86_400_000).toISOString().slice(0, 10);
    return {
      id: invoice.id,
      orderId: invoice.orderId,
      customerId: invoice.customer.id,
      number: invoice.number,
      cents: invoice.gross,
      createdAt,
      dueOn,
    };
  });
  const sql = openInvoicesSql(invoices, {
    year: plan.year,
    creditor: creditorName,
    paymentMethod: "bank_transfer",
    description: "bench reconcile",
  });
  writeFileSync(path, `${sql}\n`);
}
