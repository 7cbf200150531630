// The official e-invoice validator (EN 16931 and XRechnung 3.0 rules, run offline) is not part of
// this repository: EINVOICE_VALIDATE names it (CI sets it), else it is looked for beside the
// checkout. The tests that need it skip, saying so in one line, where it is absent, except under
// CI=true, where it is required.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `{ path }` of the validator script, or `{ absent }`: why there is none. */
export function einvoiceValidator() {
  const configured = process.env.EINVOICE_VALIDATE;
  if (configured) return existsSync(configured) ? { path: configured } : { absent: `EINVOICE_VALIDATE=${configured}` };
  const beside = resolve(ROOT, "../shared/einvoice/validate");
  return existsSync(beside)
    ? { path: beside }
    : { absent: "neither EINVOICE_VALIDATE nor ../shared/einvoice/validate" };
}

/** Whether a missing validator fails the test rather than skips it. */
export const validatorRequired = () => process.env.CI === "true";
