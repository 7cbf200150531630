// XRechnung 3.0 in UN/CEFACT Cross Industry Invoice D16B (also what a ZUGFeRD / Factur-X PDF embeds).
// Elements appear in the order the CII schema requires; the comments name EN 16931's business terms.
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
  type SpecificationId,
  UNIT_CODE,
  type Vat,
  vatOf,
  XRECHNUNG_ID,
} from "./semantic";
import { el, serialize } from "./xml";

const NAMESPACE = {
  rsm: "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
  ram: "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  qdt: "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
  udt: "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
};

const amount = (name: string, cents: number) => el(name, null, formatCents(cents));
/** A date as CII writes it: format 102, YYYYMMDD. */
const date = (name: string, isoDate: string, type = "udt") =>
  el(name, null, el(`${type}:DateTimeString`, { format: "102" }, isoDate.replaceAll("-", "")));
const id = (name: string, value: string, attrs: Record<string, string> | null = null) =>
  el(name, null, el("ram:ID", attrs, value));
/** An electronic address: an e-mail address (scheme EM) or a Leitweg-ID (0204). */
const endpoint = (id: string, scheme: "EM" | "0204" = "EM") =>
  el("ram:URIUniversalCommunication", null, el("ram:URIID", { schemeID: scheme }, id));
/** A VAT identifier (scheme VA) or a tax number (FC). */
const taxRegistration = (value: string, scheme: "VA" | "FC") =>
  id("ram:SpecifiedTaxRegistration", value, { schemeID: scheme });

/**
 * The CII document; `specification` is its BT-24: XRechnung for `format=cii`, EN 16931 itself for the
 * copy a Factur-X PDF embeds (whose XMP declares that profile: docs/api.md part 14).
 */
export function renderCii(doc: EInvoice, specification: SpecificationId = XRECHNUNG_ID): string {
  const vat = vatOf(doc);
  const payment = paymentOf(doc);
  return serialize(
    el(
      "rsm:CrossIndustryInvoice",
      {
        "xmlns:rsm": NAMESPACE.rsm,
        "xmlns:ram": NAMESPACE.ram,
        "xmlns:qdt": NAMESPACE.qdt,
        "xmlns:udt": NAMESPACE.udt,
      },
      el(
        "rsm:ExchangedDocumentContext",
        null,
        id("ram:BusinessProcessSpecifiedDocumentContextParameter", BUSINESS_PROCESS_ID), // BT-23
        id("ram:GuidelineSpecifiedDocumentContextParameter", specification), // BT-24
      ),
      el(
        "rsm:ExchangedDocument",
        null,
        el("ram:ID", null, doc.number), // BT-1
        el("ram:TypeCode", null, doc.typeCode), // BT-3
        date("ram:IssueDateTime", doc.issueDate), // BT-2
      ),
      el(
        "rsm:SupplyChainTradeTransaction",
        null,
        doc.lines.map((line) => lineItem(line, vat)),
        agreement(doc, vat),
        delivery(doc, vat),
        settlement(doc, vat, payment),
      ),
    ),
  );
}

/** BG-25, an invoice line. */
function lineItem(line: DocumentLine, vat: Vat) {
  return el(
    "ram:IncludedSupplyChainTradeLineItem",
    null,
    el("ram:AssociatedDocumentLineDocument", null, el("ram:LineID", null, String(line.position))), // BT-126
    el("ram:SpecifiedTradeProduct", null, el("ram:Name", null, line.description)), // BT-153
    el(
      "ram:SpecifiedLineTradeAgreement",
      null,
      el("ram:NetPriceProductTradePrice", null, amount("ram:ChargeAmount", line.unitPriceCents)), // BT-146
    ),
    el(
      "ram:SpecifiedLineTradeDelivery",
      null,
      el("ram:BilledQuantity", { unitCode: UNIT_CODE }, String(line.quantity)), // BT-129, BT-130
    ),
    el(
      "ram:SpecifiedLineTradeSettlement",
      null,
      el(
        "ram:ApplicableTradeTax",
        null,
        el("ram:TypeCode", null, "VAT"),
        el("ram:CategoryCode", null, vat.category), // BT-151
        vat.linePercent !== null && el("ram:RateApplicablePercent", null, vat.linePercent), // BT-152
      ),
      el(
        "ram:SpecifiedTradeSettlementLineMonetarySummation",
        null,
        amount("ram:LineTotalAmount", line.netCents), // BT-131
      ),
    ),
  );
}

/** The parties and the references. */
function agreement(doc: EInvoice, vat: Vat) {
  return el(
    "ram:ApplicableHeaderTradeAgreement",
    null,
    el("ram:BuyerReference", null, buyerReferenceOf(doc)), // BT-10
    seller(doc, vat),
    buyer(doc.buyer, vat),
    el("ram:SellerOrderReferencedDocument", null, el("ram:IssuerAssignedID", null, doc.salesOrderReference)), // BT-14
    present(doc.orderReference) &&
      el("ram:BuyerOrderReferencedDocument", null, el("ram:IssuerAssignedID", null, doc.orderReference)), // BT-13
  );
}

/** BG-4. */
function seller(doc: EInvoice, vat: Vat) {
  const s = doc.seller;
  const legalInfo = sellerLegalInfoOf(doc);
  return el(
    "ram:SellerTradeParty",
    null,
    el("ram:Name", null, s.name), // BT-27
    legalInfo && el("ram:Description", null, legalInfo), // BT-33
    id("ram:SpecifiedLegalOrganization", s.registrationId), // BT-30: names the seller when no VAT id may (O)
    el(
      "ram:DefinedTradeContact", // BG-6
      null,
      el("ram:PersonName", null, s.contactName),
      el("ram:TelephoneUniversalCommunication", null, el("ram:CompleteNumber", null, s.contactPhone)),
      el("ram:EmailURIUniversalCommunication", null, el("ram:URIID", null, s.contactEmail)),
    ),
    address(s),
    endpoint(s.electronicAddress), // BT-34
    vat.showsVatIds && taxRegistration(s.vatId, "VA"), // BT-31
    vat.showsVatIds && present(s.taxNumber) && taxRegistration(s.taxNumber, "FC"), // BT-32
  );
}

/** BG-7. */
function buyer(b: Buyer, vat: Vat) {
  const address49 = buyerAddressOf(b);
  return el(
    "ram:BuyerTradeParty",
    null,
    el("ram:ID", null, b.customerId), // BT-46
    el("ram:Name", null, b.legalName), // BT-44
    address(b),
    address49 && endpoint(address49.id, address49.scheme), // BT-49
    vat.showsVatIds && present(b.vatId) && taxRegistration(b.vatId, "VA"), // BT-48
  );
}

/** Payment, VAT breakdown, period, totals, the preceding invoice, the accounting reference. */
function settlement(doc: EInvoice, vat: Vat, payment: Payment) {
  return el(
    "ram:ApplicableHeaderTradeSettlement",
    null,
    payment.code === "59" && el("ram:CreditorReferenceID", null, payment.creditorId), // BT-90
    el("ram:PaymentReference", null, payment.remittance), // BT-83
    el("ram:InvoiceCurrencyCode", null, CURRENCY), // BT-5
    el(
      "ram:SpecifiedTradeSettlementPaymentMeans", // BG-16
      null,
      el("ram:TypeCode", null, payment.code), // BT-81
      payment.code === "59" &&
        el("ram:PayerPartyDebtorFinancialAccount", null, el("ram:IBANID", null, payment.debitedIban)), // BT-91
      payment.code === "58" &&
        el(
          "ram:PayeePartyCreditorFinancialAccount", // BG-17
          null,
          el("ram:IBANID", null, payment.iban), // BT-84
          el("ram:AccountName", null, payment.accountName), // BT-85
        ),
      payment.code === "58" &&
        present(payment.bic) &&
        el("ram:PayeeSpecifiedCreditorFinancialInstitution", null, el("ram:BICID", null, payment.bic)), // BT-86
    ),
    el(
      "ram:ApplicableTradeTax", // BG-23
      null,
      amount("ram:CalculatedAmount", doc.vatCents), // BT-117
      el("ram:TypeCode", null, "VAT"),
      vat.exemption && el("ram:ExemptionReason", null, vat.exemption.text), // BT-120
      amount("ram:BasisAmount", doc.netCents), // BT-116
      el("ram:CategoryCode", null, vat.category), // BT-118
      vat.exemption && el("ram:ExemptionReasonCode", null, vat.exemption.code), // BT-121
      el("ram:RateApplicablePercent", null, vat.breakdownPercent), // BT-119
    ),
    doc.servicePeriod && // BG-14
      el(
        "ram:BillingSpecifiedPeriod",
        null,
        date("ram:StartDateTime", doc.servicePeriod.start),
        date("ram:EndDateTime", doc.servicePeriod.end),
      ),
    el(
      "ram:SpecifiedTradePaymentTerms",
      null,
      payment.code === "97" && el("ram:Description", null, payment.terms), // BT-20
      doc.dueDate && date("ram:DueDateDateTime", doc.dueDate), // BT-9
      payment.code === "59" && el("ram:DirectDebitMandateID", null, payment.mandate), // BT-89
    ),
    el(
      "ram:SpecifiedTradeSettlementHeaderMonetarySummation", // BG-22
      null,
      amount("ram:LineTotalAmount", doc.netCents), // BT-106
      amount("ram:TaxBasisTotalAmount", doc.netCents), // BT-109
      el("ram:TaxTotalAmount", { currencyID: CURRENCY }, formatCents(doc.vatCents)), // BT-110
      amount("ram:GrandTotalAmount", doc.grossCents), // BT-112
      amount("ram:DuePayableAmount", doc.grossCents), // BT-115
    ),
    doc.precedingInvoice && // BG-3
      el(
        "ram:InvoiceReferencedDocument",
        null,
        el("ram:IssuerAssignedID", null, doc.precedingInvoice.number),
        date("ram:FormattedIssueDateTime", doc.precedingInvoice.issueDate, "qdt"),
      ),
    // BT-19
    present(doc.accountingReference) && id("ram:ReceivableSpecifiedTradeAccountingAccount", doc.accountingReference),
  );
}

/** BG-13: the deliver-to party (BT-70) and address (BG-15) of a K or G supply; else empty, as the schema allows. */
function delivery(doc: EInvoice, vat: Vat) {
  const to = deliverToOf(doc, vat);
  return el(
    "ram:ApplicableHeaderTradeDelivery",
    null,
    to && el("ram:ShipToTradeParty", null, el("ram:Name", null, to.name), address(to)),
  );
}

function address(a: PostalAddress) {
  return el(
    "ram:PostalTradeAddress",
    null,
    el("ram:PostcodeCode", null, a.postcode),
    el("ram:LineOne", null, a.street),
    el("ram:CityName", null, a.city),
    el("ram:CountryID", null, a.countryCode),
  );
}
