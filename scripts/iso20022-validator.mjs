// The ISO 20022 schema validator (`validate FILE...`: camt.053.001.02 and .08 bank statements, pain.008.001.08
// direct debits, against ISO's XML Schemas, with xmllint) is not part of this repository, which reads nothing
// outside itself: ISO20022_VALIDATE names it (.ci/run sets it). As with the e-invoice tools
// (scripts/einvoice-validator.mjs), a test that needs it skips, saying so in one line, where it is not
// named, except under CI=true, where it is required.
import { existsSync } from "node:fs";

export { validatorRequired } from "./einvoice-validator.mjs";

/** `{ path }` of the validator ISO20022_VALIDATE names, or `{ absent }`: why there is none. */
export function iso20022Validator() {
  const configured = process.env.ISO20022_VALIDATE;
  if (!configured) return { absent: "ISO20022_VALIDATE is not set" };
  return existsSync(configured) ? { path: configured } : { absent: `ISO20022_VALIDATE=${configured} does not exist` };
}
