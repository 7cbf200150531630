import type { CamtVersion } from "./camt053-entries";
import { CamtError } from "./camt053-values";

// CONTRACT part 15: a text over its schema length is refused at once. The longest text the ISO schema of
// each version allows an element of the camt namespace, by its local name (the longest of its simple
// types where a name has several; a name whose type bounds no length, as a date or an amount, is not
// here: the reader checks those values itself). Taken from the schemas' maxLength facets, the longest
// value of an enumeration, and the length a pattern bounds (IBAN 34, BIC 11, currency 3, country 2).
// An element the schema makes complex has no text of its own but the white space between its children.
const BY_LENGTH: Record<CamtVersion, Record<number, string[]>> = {
  "camt.053.001.02": {
    2: ["Ctry CtryOfBirth CtryOfRes"],
    3: ["Ccy SrcCcy TrgtCcy UnitCcy"],
    4: ["AdrTp Br CdtDbtInd CpyDplctInd NmPrfx RmtLctnMtd Sts SubFmlyCd"],
    11: ["BIC BICOrBEI"],
    16: ["BldgNb PstCd"],
    34: ["IBAN"],
    35: [
      "AcctSvcrRef AdmstnZn Cd CertId ChqNb CityOfBirth ClrSysRef Ctgy CtgyDtls CtrctId CtrySubDvsn",
      "DbtrSts EndToEndId FrmsCd Id InstrId Issr MmbId MndtId MsgId MsgNmId Mtd Nb NtryRef Othr",
      "PmtInfId Prtry PrvcOfBirth Qty Ref RegnId RmtId Rsn TaxId TaxTp Titl Tp TwnNm TxId",
    ],
    70: ["AdrLine Dept StrtNm SubDept"],
    140: ["AddtlRmtInf Nm RefNb Ustrd"],
    500: ["AddtlInf AddtlNtryInf AddtlStmtInf AddtlTxInf"],
    2048: ["EmailAdr RmtLctnElctrncAdr"],
  },
  "camt.053.001.08": {
    2: ["Ctry CtryOfBirth CtryOfRes"],
    3: ["Ccy SrcCcy TrgtCcy UnitCcy"],
    4: [
      "AddtlSvc AttndncCntxt AuthntcnMtd AuthntcnNtty Br CSCMgmt CardDataNtryMd CardRdngCpblties",
      "CdtDbtInd ChanlTp CpyDplctInd CrdhldrVrfctnCpblties DispTp NmPrfx OnLineCpblties POICmpntTp",
      "PrefrdMtd RePresntmntRsn SubFmlyCd TxChanl TxCtgy TxEnvt UnitOfMeasr ValTp",
    ],
    11: ["AnyBIC BICFI"],
    16: ["BldgNb PstBx PstCd Sfx VrsnNb"],
    34: ["IBAN"],
    35: [
      "AcctOwnrTxId AcctSvcrRef AcctSvcrTxId AddtlPdctInf AdmstnZone BldgNm Cd CertId ChqNb CityOfBirth",
      "ClrSysRef Ctgy CtgyDtls CtrctId CtrySubDvsn DbtrSts DstrctNm EQSeq EmailPurp EndToEndId EvtId",
      "EvtTp FrSeq FrmsCd FrstTx GrpId InstrId Issr JobTitl LastTx ManfctrId Mdl MktInfrstrctrTxId",
      "MmbId MndtId MsgId MsgNmId Mtd NEQSeq Nb NtryRef Othr PmtInfId PrcgId Prtry PrvcOfBirth Qty Ref",
      "RegnId RmtId Rsn Rspnsblty SaleRcncltnId SaleRefNb SchmeNm ShrtNm SrlNb TaxId TaxTp Titl ToSeq",
      "Tp TwnLctnNm TwnNm TxId TxRef VldtnSeqNb",
    ],
    70: ["AddtlCardData AdrLine ApprvlNb Dept Flr PdctCd Room StrtNm SubDept SysNm"],
    140: ["AddtlRmtInf Nm RefNb TrckVal Ustrd"],
    350: ["PlcAndNm"],
    500: ["AddtlInf AddtlNtryInf AddtlStmtInf AddtlTxInf"],
    1025: ["ICCRltdData"],
    2048: ["Desc ElctrncAdr EmailAdr Id"],
  },
};

/** The longest text of each element name, by version. */
export const TEXT_LENGTHS: ReadonlyMap<CamtVersion, ReadonlyMap<string, number>> = new Map(
  (Object.entries(BY_LENGTH) as [CamtVersion, Record<number, string[]>][]).map(([version, byLength]) => [
    version,
    new Map(
      Object.entries(byLength).flatMap(([length, lines]) =>
        lines.flatMap((line) => line.split(" ").map((name) => [name, Number(length)] as const)),
      ),
    ),
  ]),
);

/** CONTRACT part 15: deeper than this, a file is refused (saxes takes time quadratic in the depth). */
const MAX_DEPTH = 32;

/** The characters (code points) of `text`: what a schema's length counts. */
function characters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) count--, i++;
  }
  return count;
}

/**
 * What the ISO schema refuses for shape or size, found while the file streams by (camt053.ts tells it
 * each element): an element deeper than MAX_DEPTH, refused before it costs (each level more makes
 * every element below it slower to read), and a text longer than its element's schema allows.
 */
export class ShapeCheck {
  /** Of each open element whose length the schema bounds, by depth: its bound, its line, its text so far. */
  private readonly bounded: ({ longest: number; line: number; text: string } | undefined)[] = [];

  /** An element opens at `depth` (the root is 1), its text at most `longest` characters, if bounded. */
  open(name: string, depth: number, line: number, longest: number | undefined) {
    if (depth > MAX_DEPTH)
      throw new CamtError(
        "refused",
        `the element <${name}> on line ${line} is nested ${depth} levels deep: at most ${MAX_DEPTH} are allowed`,
      );
    this.bounded[depth] = longest === undefined ? undefined : { longest, line, text: "" };
  }

  /** Text of the element open at `depth`. */
  text(depth: number, value: string) {
    const own = this.bounded[depth];
    if (own) own.text += value;
  }

  /** The element open at `depth` closes: its text counted as the service reads it, trimmed. */
  close(name: string, depth: number) {
    const own = this.bounded[depth];
    if (!own) return;
    // A complex element's own text is the white space around its children.
    const length = characters(own.text.trim());
    const { longest, line } = own;
    if (length > longest)
      throw new CamtError(
        "refused",
        `the element <${name}> on line ${line} holds ${length} characters: its schema allows at most ${longest}`,
      );
    this.bounded[depth] = undefined;
  }
}
