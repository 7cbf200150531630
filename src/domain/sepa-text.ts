// docs/api.md part 16: SEPA files carry only the Latin character set EPC's rulebooks allow: a-z, A-Z,
// 0-9, space and / - ? : ( ) . , ' +. Names and texts are transliterated into it (ä -> ae, ß -> ss,
// é -> e, & -> +); ids are never changed (they are checked to be in it already).

const SEPA_TEXT = /^[A-Za-z0-9/?:().,'+ -]*$/;

/** Letters that do not decompose into a base letter and marks, and the German umlauts. */
const SPELLED: Record<string, string> = {
  ä: "ae",
  ö: "oe",
  ü: "ue",
  Ä: "Ae",
  Ö: "Oe",
  Ü: "Ue",
  ß: "ss",
  ẞ: "SS",
  æ: "ae",
  Æ: "AE",
  œ: "oe",
  Œ: "OE",
  ø: "o",
  Ø: "O",
  å: "a",
  Å: "A",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
  ð: "d",
  Ð: "D",
  þ: "th",
  Þ: "Th",
  ı: "i",
  "&": "+",
  "@": "(at)",
  "\u2019": "'",
  "\u2018": "'",
  "\u201c": "'",
  "\u201d": "'",
  "\u201e": "'",
  "\u2013": "-",
  "\u2014": "-",
  _: "-",
  '"': "'",
  "*": ".",
  "#": ".",
  ";": ",",
  "!": ".",
};

/** Greek (ELOT 743) and Cyrillic (ISO 9, as banks spell it) letters, lower case: SEPA countries write both. */
const LATINISED: Record<string, string> = {
  α: "a",
  β: "v",
  γ: "g",
  δ: "d",
  ε: "e",
  ζ: "z",
  η: "i",
  θ: "th",
  ι: "i",
  κ: "k",
  λ: "l",
  μ: "m",
  ν: "n",
  ξ: "x",
  ο: "o",
  π: "p",
  ρ: "r",
  σ: "s",
  ς: "s",
  τ: "t",
  υ: "y",
  φ: "f",
  χ: "ch",
  ψ: "ps",
  ω: "o",
  а: "a",
  б: "b",
  в: "v",
  г: "g",
  ґ: "g",
  д: "d",
  е: "e",
  є: "ye",
  ж: "zh",
  з: "z",
  и: "i",
  і: "i",
  ї: "i",
  й: "y",
  к: "k",
  л: "l",
  м: "m",
  н: "n",
  о: "o",
  п: "p",
  р: "r",
  с: "s",
  т: "t",
  у: "u",
  ф: "f",
  х: "kh",
  ц: "ts",
  ч: "ch",
  ш: "sh",
  щ: "shch",
  ъ: "",
  ы: "y",
  ь: "",
  э: "e",
  ю: "yu",
  я: "ya",
  ђ: "dj",
  ј: "j",
  љ: "lj",
  њ: "nj",
  ћ: "c",
  џ: "dz",
  ѓ: "gj",
  ќ: "kj",
  ѕ: "dz",
};

/** A letter of another script spelled in Latin letters (upper case stays upper case), or undefined. */
function latinised(letter: string): string | undefined {
  const lower = letter.toLowerCase();
  const spelled = LATINISED[lower];
  if (spelled === undefined || spelled === "") return spelled;
  return letter === lower ? spelled : spelled[0]!.toUpperCase() + spelled.slice(1);
}

/** Whether `text` is in the SEPA Latin set as it stands. */
export const isSepaText = (text: string): boolean => SEPA_TEXT.test(text);

/**
 * `text` in the SEPA Latin set: spelled out, accents taken off, Greek and Cyrillic in Latin letters,
 * anything else a space; runs of spaces and the ends trimmed; at most `max` characters.
 */
export function sepaText(text: string, max: number): string {
  let out = "";
  // Greek's ου is one sound: ELOT 743 writes "ou" (Παπαδόπουλος -> Papadopoulos).
  for (const character of text.replace(/ο[υύ]/g, "ou").replace(/ΟΥ/g, "OU").replace(/Ο[υύ]/g, "Ou")) {
    const spelled = SPELLED[character];
    if (spelled !== undefined) out += spelled;
    else if (SEPA_TEXT.test(character)) out += character;
    else {
      // A letter of its own first (й is not и with a mark), then the letter without its marks.
      const base = character.normalize("NFD").replace(/\p{M}/gu, "");
      out += latinised(character) ?? (base.length > 0 && SEPA_TEXT.test(base) ? base : (latinised(base) ?? " "));
    }
  }
  return out.replace(/\s+/g, " ").trim().slice(0, max).trim();
}
