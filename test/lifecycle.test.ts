import { describe, expect, it } from "vitest";
import { cardOrderLifecycle } from "../src/domain/card-orders";
import { invoiceLifecycle } from "../src/domain/invoices";
import { moved } from "../src/domain/lifecycle";

// The lifecycle table is the one place that moves a resource (issue 36.2): a route's action, and the
// moves the service makes itself (a payment settling an invoice, a returned debit reopening it).
const AT = "2026-03-02T10:00:00.000Z";

describe("moved(): the columns a lifecycle step sets", () => {
  it("an invoice settled by its payments is paid, stamped paid_at", () => {
    expect(moved(invoiceLifecycle, "open", { move: "settle" }, AT)).toStrictEqual({
      state: "paid",
      updatedAt: AT,
      paidAt: AT,
    });
  });

  it("an invoice whose debit is returned is open again, paid_at cleared", () => {
    expect(moved(invoiceLifecycle, "paid", { move: "reopen" }, AT)).toStrictEqual({
      state: "open",
      updatedAt: AT,
      paidAt: null,
    });
  });

  it("a route's action sets its state and stamp: an invoice's cancel, a card order's submit", () => {
    expect(moved(invoiceLifecycle, "open", { action: "cancel" }, AT)).toStrictEqual({
      state: "cancelled",
      updatedAt: AT,
      cancelledAt: AT,
    });
    expect(moved(cardOrderLifecycle, "draft", { action: "submit" }, AT)).toStrictEqual({
      state: "submitted",
      updatedAt: AT,
      submittedAt: AT,
    });
  });

  it("refuses a step the table does not allow from the state", () => {
    expect(() => moved(invoiceLifecycle, "cancelled", { move: "settle" }, AT)).toThrow(/not allowed from cancelled/);
    expect(() => moved(invoiceLifecycle, "open", { move: "reopen" }, AT)).toThrow(/not allowed from open/);
    expect(() => moved(invoiceLifecycle, "paid", { action: "cancel" }, AT)).toThrow(/not allowed from paid/);
  });
});
