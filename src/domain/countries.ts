// ISO 3166-1 alpha-2: the 249 officially assigned codes, two letters each.
const ASSIGNED =
  "ADAEAFAGAIALAMAOAQARASATAUAWAXAZBABBBDBEBFBGBHBIBJBLBMBNBOBQBRBSBTBVBWBYBZCACCCDCFCGCHCICKCLCMCNCOCRCUCVCWCXCY" +
  "CZDEDJDKDMDODZECEEEGEHERESETFIFJFKFMFOFRGAGBGDGEGFGGGHGIGLGMGNGPGQGRGSGTGUGWGYHKHMHNHRHTHUIDIEILIMINIOIQIRISIT" +
  "JEJMJOJPKEKGKHKIKMKNKPKRKWKYKZLALBLCLILKLRLSLTLULVLYMAMCMDMEMFMGMHMKMLMMMNMOMPMQMRMSMTMUMVMWMXMYMZNANCNENFNGNI" +
  "NLNONPNRNUNZOMPAPEPFPGPHPKPLPMPNPRPSPTPWPYQARERORSRURWSASBSCSDSESGSHSISJSKSLSMSNSOSRSSSTSVSXSYSZTCTDTFTGTHTJTK" +
  "TLTMTNTOTRTTTVTWTZUAUGUMUSUYUZVAVCVEVGVIVNVUWFWSYEYTZAZMZW";

/** Whether `code` is an assigned ISO 3166-1 alpha-2 country code, upper case. */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  for (let i = 0; i < ASSIGNED.length; i += 2) if (ASSIGNED.startsWith(code, i)) return true;
  return false;
}

/** The prefix of a VAT identification number of `country`: its code, but EL for Greece. */
export const vatPrefixOf = (country: string): string => (country === "GR" ? "EL" : country);

/** The member states of the European Union (2026), whose VAT territory docs/api.md part 14 follows. */
const EU = new Set("AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK".split(" "));

/** Whether `country` is a member state of the European Union. */
export const isEuMember = (country: string): boolean => EU.has(country);

/** The EEA: the EU and Iceland, Liechtenstein and Norway. */
const isEea = (country: string): boolean => EU.has(country) || country === "IS" || country === "LI" || country === "NO";

/**
 * The countries of the SEPA schemes outside the EEA (EPC's list of 2025): a debit of an account there
 * names the debtor's BIC and address (docs/api.md part 14). UK Crown dependencies bank under GB.
 */
const SEPA_OUTSIDE_EEA = new Set("AD AL CH GB GI MC MD ME MK RS SM VA".split(" "));

/** Whether accounts of `country` can be debited by SEPA direct debit. */
export const isSepaCountry = (country: string): boolean => isEea(country) || SEPA_OUTSIDE_EEA.has(country);

/** Whether a SEPA debit of an account in `country` needs the debtor's BIC (a SEPA country outside the EEA). */
export const needsBic = (country: string): boolean => SEPA_OUTSIDE_EEA.has(country);
