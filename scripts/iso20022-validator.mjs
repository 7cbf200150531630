// The ISO 20022 schema validator (camt.053, pain.008 against ISO's XML Schemas), outside the repository:
// ISO20022_VALIDATE names it; skipped like the e-invoice tools (scripts/einvoice-validator.mjs).
import { existsSync } from "node:fs";

export { validatorRequired } from "./einvoice-validator.mjs";

/** `{ path }` of the validator ISO20022_VALIDATE names, or `{ absent }`: why there is none. */
export function iso20022Validator() {
  const configured = process.env.ISO20022_VALIDATE;
  if (!configured) return { absent: "ISO20022_VALIDATE is not set" };
  return existsSync(configured) ? { path: configured } : { absent: `ISO20022_VALIDATE=${configured} does not exist` };
}
