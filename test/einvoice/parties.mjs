// The parties of the e-invoice fixtures: the seller as its CREDITOR_* variables, and buyers as their
// billing profiles (rows of billing_profiles), realistic data with umlauts, ß, "&" and quotes to prove
// the escaping. fixtures.mjs turns them into documents through the service's own code; bench/render.mjs
// times renders with them.

/** wrangler.toml's seller variables, as an operator would set them. */
export const SELLER_VARS = {
  CREDITOR_NAME: "Gutscheinwerk Süd GmbH & Co. KG",
  CREDITOR_STREET: "Königstraße 12",
  CREDITOR_POSTCODE: "80331",
  CREDITOR_CITY: "München",
  CREDITOR_COUNTRY: "DE",
  CREDITOR_VAT_ID: "DE123456789",
  CREDITOR_TAX_NUMBER: "143/123/45678",
  CREDITOR_REGISTRATION_ID: "HRA 123456, Amtsgericht München",
  CREDITOR_MANAGING_DIRECTORS: "Jürgen Weiß, Dr. Anna Schäfer",
  CREDITOR_CONTACT_NAME: "Jürgen Weiß",
  CREDITOR_CONTACT_PHONE: "+49 89 1234567",
  CREDITOR_CONTACT_EMAIL: "rechnung@gutscheinwerk-sued.de",
  CREDITOR_ELECTRONIC_ADDRESS: "e-rechnung@gutscheinwerk-sued.de",
  CREDITOR_IBAN: "DE02120300000000202051",
  CREDITOR_BIC: "BYLADEM1001",
  CREDITOR_SEPA_CREDITOR_ID: "DE98ZZZ09999999999",
};

const profile = (fields) => ({
  vatId: null,
  buyerReference: null,
  leitwegId: null,
  directDebitBic: null,
  directDebitMandateSignedOn: "2026-01-15",
  documentLanguage: "de",
  updatedAt: "2026-01-15T08:00:00.000Z",
  ...fields,
});

/** Billing profiles of buyers at home and abroad, each with a direct-debit mandate. */
export const PROFILES = {
  // A German business, reached by e-mail.
  DE: profile({
    customerId: "cus_7f3a9c2e",
    legalName: "Müller & Söhne Straßenbau GmbH",
    street: "Große Elbstraße 5",
    postcode: "22767",
    city: "Hamburg",
    countryCode: "DE",
    vatId: "DE987654321",
    email: "buchhaltung@mueller-soehne.de",
    directDebitIban: "DE02500105170137075030",
    directDebitMandateReference: "MANDAT-2026-0042",
  }),
  // A German public-sector buyer, reached by its Leitweg-ID, with a reference of its own.
  "DE-public": profile({
    customerId: "cus_stadt_kassel",
    legalName: "Stadt Kassel, Amt für Schulen",
    street: "Obere Königsstraße 8",
    postcode: "34117",
    city: "Kassel",
    countryCode: "DE",
    buyerReference: "Schulkantinen 2026",
    leitwegId: "04011000-12345-03",
    email: "e-rechnung@kassel.example",
    directDebitIban: "DE89370400440532013000",
    directDebitMandateReference: "KS/2026/7",
  }),
  FR: profile({
    customerId: "cus_fr_0042",
    legalName: "Cantine Dupont & Fils SARL",
    street: "12 rue de l'Église",
    postcode: "75004",
    city: "Paris",
    countryCode: "FR",
    vatId: "FR40303265045",
    email: "factures@dupont.example",
    directDebitIban: "FR1420041010050500013M02606",
    directDebitMandateReference: "FR-MANDAT-01",
    documentLanguage: "en",
  }),
  AT: profile({
    customerId: "cus_at_0815",
    legalName: "Gasthaus Zum Grünen Baum GmbH",
    street: "Mariahilfer Straße 99",
    postcode: "1060",
    city: "Wien",
    countryCode: "AT",
    vatId: "ATU12345678",
    email: "rechnung@gruener-baum.example",
    directDebitIban: "AT611904300234573201",
    directDebitMandateReference: "AT-2026-17",
  }),
  CH: profile({
    customerId: "cus_ch_3000",
    legalName: "Bergbeizli Zürich AG",
    street: "Bahnhofstrasse 1",
    postcode: "8001",
    city: "Zürich",
    countryCode: "CH",
    vatId: null,
    email: "buchhaltung@bergbeizli.example",
    directDebitIban: "CH9300762011623852957",
    directDebitBic: "UBSWCHZH80A",
    directDebitMandateReference: "CH-LSV-42",
    documentLanguage: "en",
  }),
  GR: profile({
    customerId: "cus_gr_1821",
    legalName: "Ελληνικά Τρόφιμα Α.Ε.",
    street: "Λεωφόρος Βασιλίσσης Σοφίας 10",
    postcode: "106 74",
    city: "Αθήνα",
    countryCode: "GR",
    vatId: "EL094259216",
    email: "logistirio@trofima.example",
    directDebitIban: "GR1601101250000000012300695",
    directDebitMandateReference: "GR/2026/001",
  }),
};
