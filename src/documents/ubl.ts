// XRechnung 3.0 in UBL 2.1: an Invoice for type code 380, a CreditNote for 381. Elements appear in the
// order the UBL schemas require; the comments name EN 16931's business terms (BT) and groups (BG).
import { formatCents } from "../domain/money";
import type { Buyer, DocumentLine, EInvoice, PostalAddress } from "../domain/einvoice";
import {
  BUSINESS_PROCESS_ID,
  buyerAddressOf,
  buyerReferenceOf,
  CURRENCY,
  deliverToOf,
  type Payment,
  paymentOf,
  present,
  sellerLegalInfoOf,
  UNIT_CODE,
  type Vat,
  vatOf,
  XRECHNUNG_ID,
} from "./semantic";
import { el, serialize } from "./xml";

const NAMESPACE = {
  invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  creditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
};

const text = (name: string, value: string | null | undefined) => present(value) && el(name, null, value);
const amount = (name: string, cents: number) => el(name, { currencyID: CURRENCY }, formatCents(cents));

export function renderUbl(doc: EInvoice): string {
  const credit = doc.typeCode === "381";
  const vat = vatOf(doc);
  const payment = paymentOf(doc);
  const deliverTo = deliverToOf(doc, vat);
  const root = credit ? "CreditNote" : "Invoice";
  return serialize(
    el(
      root,
      {
        xmlns: credit ? NAMESPACE.creditNote : NAMESPACE.invoice,
        "xmlns:cac": NAMESPACE.cac,
        "xmlns:cbc": NAMESPACE.cbc,
      },
      el("cbc:CustomizationID", null, XRECHNUNG_ID), // BT-24
      el("cbc:ProfileID", null, BUSINESS_PROCESS_ID), // BT-23
      el("cbc:ID", null, doc.number), // BT-1
      el("cbc:IssueDate", null, doc.issueDate), // BT-2
      !credit && text("cbc:DueDate", doc.dueDate), // BT-9 (a CreditNote has it in PaymentMeans)
      el(credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode", null, doc.typeCode), // BT-3
      el("cbc:DocumentCurrencyCode", null, CURRENCY), // BT-5
      text("cbc:AccountingCost", doc.accountingReference), // BT-19
      el("cbc:BuyerReference", null, buyerReferenceOf(doc)), // BT-10
      doc.servicePeriod && // BG-14
        el(
          "cac:InvoicePeriod",
          null,
          el("cbc:StartDate", null, doc.servicePeriod.start),
          el("cbc:EndDate", null, doc.servicePeriod.end),
        ),
      // BT-13 and BT-14: UBL's OrderReference needs an ID, so without the buyer's order "NA" stands in
      // (the placeholder Peppol BIS 3 prescribes for a sales order reference alone).
      el(
        "cac:OrderReference",
        null,
        el("cbc:ID", null, present(doc.orderReference) ? doc.orderReference : "NA"),
        el("cbc:SalesOrderID", null, doc.salesOrderReference),
      ),
      doc.precedingInvoice && // BG-3
        el(
          "cac:BillingReference",
          null,
          el(
            "cac:InvoiceDocumentReference",
            null,
            el("cbc:ID", null, doc.precedingInvoice.number),
            el("cbc:IssueDate", null, doc.precedingInvoice.issueDate),
          ),
        ),
      el("cac:AccountingSupplierParty", null, seller(doc, vat, payment)), // BG-4
      el("cac:AccountingCustomerParty", null, buyer(doc.buyer, vat)), // BG-7
      deliverTo && // BG-13: the deliver-to party's name (BT-70) and address (BG-15)
        el(
          "cac:Delivery",
          null,
          el("cac:DeliveryLocation", null, address(deliverTo, "cac:Address")),
          el("cac:DeliveryParty", null, el("cac:PartyName", null, el("cbc:Name", null, deliverTo.name))),
        ),
      paymentMeans(payment),
      payment.code === "97" && el("cac:PaymentTerms", null, el("cbc:Note", null, payment.terms)), // BT-20
      el(
        "cac:TaxTotal",
        null,
        amount("cbc:TaxAmount", doc.vatCents), // BT-110
        el(
          "cac:TaxSubtotal", // BG-23
          null,
          amount("cbc:TaxableAmount", doc.netCents), // BT-116
          amount("cbc:TaxAmount", doc.vatCents), // BT-117
          taxCategory("cac:TaxCategory", vat.category, vat.breakdownPercent, vat.exemption), // BT-118..121
        ),
      ),
      el(
        "cac:LegalMonetaryTotal", // BG-22
        null,
        amount("cbc:LineExtensionAmount", doc.netCents), // BT-106
        amount("cbc:TaxExclusiveAmount", doc.netCents), // BT-109
        amount("cbc:TaxInclusiveAmount", doc.grossCents), // BT-112
        amount("cbc:PayableAmount", doc.grossCents), // BT-115
      ),
      doc.lines.map((line) => invoiceLine(line, vat, credit)),
    ),
  );
}

/** BG-25, an invoice line (a CreditNoteLine in a credit note). */
function invoiceLine(line: DocumentLine, vat: Vat, credit: boolean) {
  return el(
    credit ? "cac:CreditNoteLine" : "cac:InvoiceLine",
    null,
    el("cbc:ID", null, String(line.position)), // BT-126
    el(credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity", { unitCode: UNIT_CODE }, String(line.quantity)),
    amount("cbc:LineExtensionAmount", line.netCents), // BT-131
    el(
      "cac:Item",
      null,
      el("cbc:Name", null, line.description), // BT-153
      taxCategory("cac:ClassifiedTaxCategory", vat.category, vat.linePercent, null), // BT-151, BT-152
    ),
    el("cac:Price", null, amount("cbc:PriceAmount", line.unitPriceCents)), // BT-146
  );
}

function seller(doc: EInvoice, vat: Vat, payment: Payment) {
  const s = doc.seller;
  return el(
    "cac:Party",
    null,
    el("cbc:EndpointID", { schemeID: "EM" }, s.electronicAddress), // BT-34
    // BT-90: UBL carries the SEPA creditor id as a seller identifier with scheme "SEPA".
    payment.code === "59" &&
      el("cac:PartyIdentification", null, el("cbc:ID", { schemeID: "SEPA" }, payment.creditorId)),
    address(s),
    vat.showsVatIds && partyTax(s.vatId, "VAT"), // BT-31
    vat.showsVatIds && present(s.taxNumber) && partyTax(s.taxNumber, "FC"), // BT-32
    el(
      "cac:PartyLegalEntity",
      null,
      el("cbc:RegistrationName", null, s.name), // BT-27
      el("cbc:CompanyID", null, s.registrationId), // BT-30: names the seller when no VAT id may (O)
      text("cbc:CompanyLegalForm", sellerLegalInfoOf(doc)), // BT-33
    ),
    el(
      "cac:Contact", // BG-6
      null,
      el("cbc:Name", null, s.contactName),
      el("cbc:Telephone", null, s.contactPhone),
      el("cbc:ElectronicMail", null, s.contactEmail),
    ),
  );
}

function buyer(b: Buyer, vat: Vat) {
  const endpoint = buyerAddressOf(b);
  return el(
    "cac:Party",
    null,
    endpoint && el("cbc:EndpointID", { schemeID: endpoint.scheme }, endpoint.id), // BT-49
    el("cac:PartyIdentification", null, el("cbc:ID", null, b.customerId)), // BT-46
    address(b),
    vat.showsVatIds && present(b.vatId) && partyTax(b.vatId, "VAT"), // BT-48
    el("cac:PartyLegalEntity", null, el("cbc:RegistrationName", null, b.legalName)), // BT-44
  );
}

function address(a: PostalAddress, name = "cac:PostalAddress") {
  return el(
    name,
    null,
    el("cbc:StreetName", null, a.street),
    el("cbc:CityName", null, a.city),
    el("cbc:PostalZone", null, a.postcode),
    el("cac:Country", null, el("cbc:IdentificationCode", null, a.countryCode)),
  );
}

function partyTax(id: string, scheme: "VAT" | "FC") {
  return el("cac:PartyTaxScheme", null, el("cbc:CompanyID", null, id), taxScheme(scheme));
}

function taxCategory(name: string, category: string, percent: string | null, exemption: Vat["exemption"]) {
  return el(
    name,
    null,
    el("cbc:ID", null, category),
    percent !== null && el("cbc:Percent", null, percent),
    exemption && el("cbc:TaxExemptionReasonCode", null, exemption.code),
    exemption && el("cbc:TaxExemptionReason", null, exemption.text),
    taxScheme(),
  );
}

const taxScheme = (id = "VAT") => el("cac:TaxScheme", null, el("cbc:ID", null, id));

function paymentMeans(payment: Payment) {
  return el(
    "cac:PaymentMeans", // BG-16
    null,
    el("cbc:PaymentMeansCode", null, payment.code), // BT-81
    el("cbc:PaymentID", null, payment.remittance), // BT-83
    payment.code === "58" &&
      el(
        "cac:PayeeFinancialAccount", // BG-17
        null,
        el("cbc:ID", null, payment.iban), // BT-84
        el("cbc:Name", null, payment.accountName), // BT-85
        present(payment.bic) && el("cac:FinancialInstitutionBranch", null, el("cbc:ID", null, payment.bic)), // BT-86
      ),
    payment.code === "59" &&
      el(
        "cac:PaymentMandate", // BG-19
        null,
        el("cbc:ID", null, payment.mandate), // BT-89
        el("cac:PayerFinancialAccount", null, el("cbc:ID", null, payment.debitedIban)), // BT-91
      ),
  );
}
