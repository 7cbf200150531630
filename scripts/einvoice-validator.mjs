// The official e-invoice validator (EN 16931 and XRechnung 3.0 rules, run offline) is not part of
// this repository, which reads nothing outside itself: EINVOICE_VALIDATE names it (.ci/run sets it).
// The tests that need it skip, saying so in one line, where it is not named, except under CI=true,
// where it is required.
import { existsSync } from "node:fs";

/** `{ path }` of the validator script, or `{ absent }`: why there is none. */
export function einvoiceValidator() {
  const configured = process.env.EINVOICE_VALIDATE;
  if (!configured) return { absent: "EINVOICE_VALIDATE is not set" };
  return existsSync(configured) ? { path: configured } : { absent: `EINVOICE_VALIDATE=${configured} does not exist` };
}

/** Whether a missing validator fails the test rather than skips it. */
export const validatorRequired = () => process.env.CI === "true";
