// The parties of the e-invoice fixtures (src/documents/model.ts Seller and Buyer): realistic German
// data with umlauts, ß and an "&" to prove the escaping. test/einvoice renders every kind of document
// with them, bench/render.mjs times renders with them.

export const SELLER = {
  name: "Gutscheinwerk Süd GmbH & Co. KG",
  street: "Königstraße 12",
  postcode: "80331",
  city: "München",
  countryCode: "DE",
  vatId: "DE123456789",
  taxNumber: "143/123/45678",
  registrationId: "HRA 123456",
  contactName: "Jürgen Weiß",
  contactPhone: "+49 89 1234567",
  contactEmail: "rechnung@gutscheinwerk-sued.de",
  electronicAddress: "e-rechnung@gutscheinwerk-sued.de",
  iban: "DE02120300000000202051",
  bic: "BYLADEM1001",
  sepaCreditorId: "DE98ZZZ09999999999",
};

export const BUYER = {
  customerId: "cus_7f3a9c2e",
  legalName: "Müller & Söhne Straßenbau GmbH",
  street: "Große Elbstraße 5",
  postcode: "22767",
  city: "Hamburg",
  countryCode: "DE",
  vatId: "DE987654321",
  buyerReference: null,
  email: "buchhaltung@mueller-soehne.de",
  directDebitIban: "DE02500105170137075030",
  directDebitMandateReference: "MANDAT-2026-0042",
};
