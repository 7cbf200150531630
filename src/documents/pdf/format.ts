// How the PDF writes values in its language (docs/api.md part 14): German "1.234,56" and "02.03.2026",
// English "1,234.56" and "2 March 2026". A credit note's amounts are negative (it reverses its invoice).
import type { DocumentLanguage } from "../../domain/einvoice";
import { formatCents } from "../../domain/money";

export interface Formats {
  /** Cents as an amount without currency, e.g. "1.234,56"; `negative` puts a minus before a non-zero one. */
  money: (cents: number, negative?: boolean) => string;
  integer: (value: number) => string;
  /** A `YYYY-MM-DD` day. */
  day: (isoDate: string) => string;
  /** A rate as configured, e.g. "7.5" → "7,5 %". */
  percent: (rate: string) => string;
  /** A country's name (ISO 3166-1 alpha-2) in the language. */
  country: (code: string) => string;
}

const SEPARATORS: Record<DocumentLanguage, { thousands: string; decimal: string }> = {
  de: { thousands: ".", decimal: "," },
  en: { thousands: ",", decimal: "." },
};

const MONTHS = "January February March April May June July August September October November December".split(" ");

const regions = new Map<DocumentLanguage, Intl.DisplayNames>();

export function formatsOf(language: DocumentLanguage): Formats {
  const { thousands, decimal } = SEPARATORS[language];
  const grouped = (digits: string) => digits.replace(/\B(?=(\d{3})+$)/g, thousands);
  return {
    money: (cents, negative = false) => {
      const [units, hundredths] = formatCents(cents).split(".");
      return `${negative && cents > 0 ? "-" : ""}${grouped(units!)}${decimal}${hundredths}`;
    },
    integer: (value) => grouped(String(value)),
    day: (isoDate) => {
      const [year, month, day] = isoDate.split("-");
      return language === "de" ? `${day}.${month}.${year}` : `${Number(day)} ${MONTHS[Number(month) - 1]} ${year}`;
    },
    percent: (rate) => `${rate.replace(".", decimal)} %`,
    country: (code) => {
      if (!regions.has(language)) regions.set(language, new Intl.DisplayNames([language], { type: "region" }));
      return regions.get(language)!.of(code) ?? code;
    },
  };
}
