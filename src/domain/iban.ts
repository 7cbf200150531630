// ISO 13616: the IBAN registry (SWIFT, release 100 of 2025). An IBAN is its country's code, two check
// digits from 02 to 98, and the country's registered number of letters and digits (the total length
// below), and it is 1 mod 97 once its first four characters move to the end.

const REGISTRY =
  "AD24AE23AL28AT20AZ28BA20BE16BG22BH22BI27BR29BY28CH21CR22CY28CZ24DE22DJ27DK18DO28EE20EG29ES24FI18" +
  "FK18FO18FR27GB22GE22GI23GL18GR27GT28HN28HR21HU28IE22IL23IQ23IS26IT27JO30KW30KZ20LB28LC32LI21LT20" +
  "LU20LV21LY25MC27MD24ME22MK19MN20MR27MT31MU30NI28NL18NO15OM23PK24PL28PS29PT25QA29RO24RS22RU33SA24" +
  "SC31SD18SE24SI19SK24SM27SO23ST25SV28TL23TN24TR26UA29VA22VG24XK20YE30";

/** Country code → total length. */
const LENGTHS = new Map(
  Array.from(REGISTRY.matchAll(/([A-Z]{2})(\d{2})/g), ([, code, length]) => [code!, Number(length)]),
);

/** The remainder mod 97 of a string of digits and letters, each letter read as 10..35 (ISO 7064 MOD 97-10). */
export function mod97(text: string): number {
  let remainder = 0;
  for (const char of text) {
    const value = Number.parseInt(char, 36);
    remainder = (remainder * (value < 10 ? 10 : 100) + value) % 97;
  }
  return remainder;
}

/** An IBAN in its electronic form (no spaces, upper case) that the registry and its check digits accept. */
export function isIban(text: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(text) || LENGTHS.get(text.slice(0, 2)) !== text.length) return false;
  const check = Number(text.slice(2, 4));
  return check >= 2 && check <= 98 && mod97(text.slice(4) + text.slice(0, 4)) === 1;
}
