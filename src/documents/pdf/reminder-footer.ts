// The foot of every page of a reminder letter: the invoice PDF's (invoice-pages.ts) for the seller as the
// letter shows it: its address and managing directors (§ 35a GmbHG), contact, bank, tax ids and register
// entry, at most six lines a column; and the page's label on the right above the rule.
import type { DocumentLanguage, Seller } from "../../domain/einvoice";
import { inGroupsOfFour as groupsOfFour } from "../../domain/payment-reference";
import { present } from "../semantic";
import { LABELS } from "./labels";
import { AREA, type Sheet } from "./sheet";

const FOOTER = { pageNumber: 84, rule: 78, top: 68, leading: 8.5, size: 7, columns: [AREA.left, 225, 385], width: 150 };
const DIRECTORS = { de: "Geschäftsführung", en: "Managing directors" } as const;

export function reminderFooter(sheet: Sheet, seller: Seller, language: DocumentLanguage, label: string) {
  const words = LABELS[language];
  const directors = present(seller.managingDirectors) ? [`${DIRECTORS[language]}: ${seller.managingDirectors}`] : [];
  const columns = [
    [seller.name, seller.street, `${seller.postcode} ${seller.city}`, ...directors],
    [seller.contactName, `${words.phone} ${seller.contactPhone}`, seller.contactEmail],
    [
      `IBAN ${groupsOfFour(seller.iban)}`,
      ...(present(seller.bic) ? [`BIC ${seller.bic}`] : []),
      `${words.vatId} ${seller.vatId}`,
      ...(present(seller.taxNumber) ? [`${words.taxNumber} ${seller.taxNumber}`] : []),
      seller.registrationId,
    ],
  ];
  sheet.text(AREA.right, FOOTER.pageNumber, label, { size: 7.5, grey: true, align: "right" });
  sheet.rule(FOOTER.rule);
  columns.forEach((lines, c) => {
    let y = FOOTER.top;
    for (const part of lines.flatMap((line) => sheet.wrap(line, FOOTER.width, FOOTER.size)).slice(0, 6)) {
      sheet.text(FOOTER.columns[c]!, y, part, { size: FOOTER.size, grey: true, fit: FOOTER.width });
      y -= FOOTER.leading;
    }
  });
}
