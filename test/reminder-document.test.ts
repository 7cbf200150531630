import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { reminderFigures } from "../src/domain/dunning-reminder";
import type { InvoiceRow } from "../src/db/schema";

// The reminder letter as the documents Worker renders it (src/documents/worker.ts, renderReminder over the
// RENDERER service binding, its real bundle with the fonts as data): what the later wiring will call and
// keep in R2 (docs/api.md part 18). A PDF, the same bytes on every call, nothing embedded. What the page
// says, its GiroCode, a bad seller variable: test/einvoice/reminder-pdf.test.mjs.

const SELLER = {
  CREDITOR_NAME: "Voucher Cards GmbH",
  CREDITOR_STREET: "Friedrichstraße 100",
  CREDITOR_POSTCODE: "10117",
  CREDITOR_CITY: "Berlin",
  CREDITOR_COUNTRY: "DE",
  CREDITOR_VAT_ID: "DE123456789",
  CREDITOR_REGISTRATION_ID: "HRB 123456 B, Amtsgericht Berlin-Charlottenburg",
  CREDITOR_MANAGING_DIRECTORS: "Erika Mustermann",
  CREDITOR_CONTACT_NAME: "Buchhaltung",
  CREDITOR_CONTACT_PHONE: "+49 30 1234567",
  CREDITOR_CONTACT_EMAIL: "buchhaltung@voucher-cards.example",
  CREDITOR_ELECTRONIC_ADDRESS: "rechnung@voucher-cards.example",
  CREDITOR_IBAN: "DE02120300000000202051",
};

const buyer = {
  customerId: "acme",
  legalName: "Acme Kantinen GmbH",
  street: "Hauptstraße 5",
  postcode: "80331",
  city: "München",
  countryCode: "DE",
  vatId: null,
  buyerReference: null,
  leitwegId: null,
  email: "rechnung@acme.example",
  directDebitIban: null,
  directDebitBic: null,
  directDebitMandateReference: null,
  directDebitMandateSignedOn: null,
  documentLanguage: "de",
};

const invoice = {
  id: "0193a1f2-0000-4b1a-9d2e-5f6a7b8c9d0e",
  customerId: "acme",
  number: "INV-2025-000123",
  state: "open",
  createdAt: "2025-05-30T09:00:00.000Z",
  updatedAt: "2025-05-30T09:00:00.000Z",
  bookedOn: "2025-05-30",
  creditor: SELLER.CREDITOR_NAME,
  dueOn: "2025-06-13",
  paidAt: null,
  cancellationNumber: null,
  cancelledAt: null,
  cancelledOn: null,
  orderId: "0193a1f2-7c4e-4b1a-9d2e-5f6a7b8c9d0e",
  orderState: "delivered",
  reference: null,
  costCenter: null,
  paymentMethod: "direct_debit",
  kind: "voucher",
  netAmount: 100_000,
  grossAmount: 100_000,
  recipient: "acme",
  servicePeriodStart: null,
  servicePeriodEnd: null,
  seller: null,
  buyer: JSON.stringify(buyer),
  linesCount: 1,
  allocatedAmount: 0,
  pendingCollection: null,
  chargesAmount: 0,
  dunningState: "none",
} satisfies InvoiceRow;

const reminder = reminderFigures({
  level: 2,
  issuedOn: "2025-07-10",
  language: "de",
  consumer: false,
  defaultSince: "2025-06-21",
  timeline: { openCents: 100_000, changes: [] },
});

const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

describe("the documents Worker's reminder letter", () => {
  it("is a PDF/A-2b, the same bytes every time, embedding nothing", async () => {
    const first = await env.RENDERER.renderReminder({ invoice, reminder, seller: SELLER });
    const second = await env.RENDERER.renderReminder({ invoice, reminder, seller: SELLER });
    expect(first).toBeInstanceOf(Uint8Array);
    expect(second).toStrictEqual(first);
    const raw = latin1(first);
    expect(raw.startsWith("%PDF-1.7\n")).toBe(true);
    expect(raw.endsWith("%%EOF\n")).toBe(true);
    expect(raw).toContain("<pdfaid:part>2</pdfaid:part>");
    for (const absent of ["/EmbeddedFile", "/Filespec", "factur-x", "/AF "]) expect(raw).not.toContain(absent);
    // A direct-debit invoice's reminder asks for a transfer: no SEPA creditor id is needed.
    const other = await env.RENDERER.renderReminder({
      invoice: { ...invoice, number: "INV-2025-000124" },
      reminder,
      seller: SELLER,
    });
    expect(other).not.toStrictEqual(first);
  });
});
