import { el, serialize } from "../documents/xml";
import { needsBic } from "../domain/countries";
import { paymentInformationIdOf, type SequenceType } from "../domain/direct-debits";
import type { Buyer, Seller } from "../domain/einvoice";
import { formatCents } from "../domain/money";
import { paymentReferenceOf } from "../domain/payment-reference";
import { sepaText } from "../domain/sepa-text";
import type { DirectDebitCollectionRow, DirectDebitRow } from "../schemas/direct-debit-collection";

// docs/api.md part 16: a collection's ISO 20022 pain.008.001.08, SEPA Core, as the seller's bank takes
// it: the group header, one payment information block per sequence type (FRST, then RCUR), one
// transaction per debit. Written from what the collection and its debits stored (the creditor as it
// was configured then, each debit's mandate and account, its invoice's buyer), so that the same bytes
// come out whenever it is asked for. Names are transliterated into SEPA's Latin set; ids are SEPA text
// already (checked when the collection is made).

const NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:pain.008.001.08";
/** EPC's limit of a name (Nm), narrower than the schema's 140. */
const NAME_MAX = 70;

interface CollectionDebit {
  debit: DirectDebitRow;
  /** The invoice's number. */
  number: string;
}

/** The debtor as a debit keeps it (direct_debits.debtor): the invoice's buyer's name and address. */
export type Debtor = Pick<Buyer, "legalName" | "street" | "postcode" | "city" | "countryCode">;

/** What of a buyer (or a profile) a debit keeps of its debtor. */
export const debtorOf = ({ legalName, street, postcode, city, countryCode }: Debtor): Debtor => ({
  legalName,
  street,
  postcode,
  city,
  countryCode,
});

/** The debtor's name in SEPA's set; a name with nothing SEPA can write (another script) is not left empty. */
const nameOf = (debtor: Debtor) => sepaText(debtor.legalName, NAME_MAX) || "NOTPROVIDED";

const amount = (cents: number) => el("InstdAmt", { Ccy: "EUR" }, formatCents(cents));
const iban = (value: string) => el("Id", null, el("IBAN", null, value));
const agent = (bic: string | null) =>
  el("FinInstnId", null, bic ? el("BICFI", null, bic) : el("Othr", null, el("Id", null, "NOTPROVIDED")));

/** The debtor's postal address: only for an account outside the EEA, where SEPA requires it. */
function address(debit: DirectDebitRow, buyer: Debtor) {
  if (!needsBic(debit.debtorIban.slice(0, 2))) return null;
  // A part of which nothing can be written (another script) is left out rather than written empty.
  const part = (name: string, text: string, max: number) => {
    const written = sepaText(text, max);
    return written === "" ? null : el(name, null, written);
  };
  return el(
    "PstlAdr",
    null,
    part("StrtNm", buyer.street, 70),
    part("PstCd", buyer.postcode, 16),
    part("TwnNm", buyer.city, 35),
    el("Ctry", null, buyer.countryCode),
  );
}

function transaction({ debit, number }: CollectionDebit) {
  const debtor = JSON.parse(debit.debtor) as Debtor;
  return el(
    "DrctDbtTxInf",
    null,
    el("PmtId", null, el("EndToEndId", null, debit.endToEndId)),
    amount(debit.amount),
    el(
      "DrctDbtTx",
      null,
      el(
        "MndtRltdInf",
        null,
        el("MndtId", null, debit.mandateReference),
        el("DtOfSgntr", null, debit.mandateSignedOn),
        el("AmdmntInd", null, debit.originalDebtorIban === null ? "false" : "true"),
        debit.originalDebtorIban !== null &&
          el("AmdmntInfDtls", null, el("OrgnlDbtrAcct", null, iban(debit.originalDebtorIban))),
      ),
    ),
    el("DbtrAgt", null, agent(debit.debtorBic)),
    el("Dbtr", null, el("Nm", null, nameOf(debtor)), address(debit, debtor)),
    el("DbtrAcct", null, iban(debit.debtorIban)),
    el(
      "RmtInf",
      null,
      el(
        "Strd",
        null,
        el(
          "CdtrRefInf",
          null,
          el("Tp", null, el("CdOrPrtry", null, el("Cd", null, "SCOR"))),
          el("Ref", null, paymentReferenceOf(number)),
        ),
      ),
    ),
  );
}

const sum = (debits: CollectionDebit[]) => debits.reduce((total, { debit }) => total + debit.amount, 0);

function paymentInformation(
  collection: DirectDebitCollectionRow,
  creditor: Seller,
  sequence: SequenceType,
  debits: CollectionDebit[],
) {
  return el(
    "PmtInf",
    null,
    el("PmtInfId", null, paymentInformationIdOf(collection.messageId, sequence)),
    el("PmtMtd", null, "DD"),
    el("BtchBookg", null, "true"),
    el("NbOfTxs", null, String(debits.length)),
    el("CtrlSum", null, formatCents(sum(debits))),
    el(
      "PmtTpInf",
      null,
      el("SvcLvl", null, el("Cd", null, "SEPA")),
      el("LclInstrm", null, el("Cd", null, "CORE")),
      el("SeqTp", null, sequence),
    ),
    el("ReqdColltnDt", null, collection.collectionDate),
    el("Cdtr", null, el("Nm", null, sepaText(creditor.name, NAME_MAX))),
    el("CdtrAcct", null, iban(creditor.iban)),
    el("CdtrAgt", null, agent(creditor.bic)),
    el("ChrgBr", null, "SLEV"),
    el(
      "CdtrSchmeId",
      null,
      el(
        "Id",
        null,
        el(
          "PrvtId",
          null,
          el("Othr", null, el("Id", null, creditor.sepaCreditorId!), el("SchmeNm", null, el("Prtry", null, "SEPA"))),
        ),
      ),
    ),
    debits.map(transaction),
  );
}

/** The collection's pain.008.001.08 file (UTF-8 text). */
export function pain008(collection: DirectDebitCollectionRow, debits: CollectionDebit[]): string {
  const creditor = JSON.parse(collection.creditor) as Seller;
  const blocks = (["FRST", "RCUR"] as const)
    .map((sequence) => [sequence, debits.filter(({ debit }) => debit.sequenceType === sequence)] as const)
    .filter(([, of]) => of.length > 0);
  return serialize(
    el(
      "Document",
      { xmlns: NAMESPACE },
      el(
        "CstmrDrctDbtInitn",
        null,
        el(
          "GrpHdr",
          null,
          el("MsgId", null, collection.messageId),
          // The moment it was made, to the second (UTC): part of what makes every request the same bytes.
          el("CreDtTm", null, `${collection.createdAt.slice(0, 19)}Z`),
          el("NbOfTxs", null, String(debits.length)),
          el("CtrlSum", null, formatCents(sum(debits))),
          el("InitgPty", null, el("Nm", null, sepaText(creditor.name, NAME_MAX))),
        ),
        blocks.map(([sequence, of]) => paymentInformation(collection, creditor, sequence, of)),
      ),
    ),
  );
}
