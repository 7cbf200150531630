// `npm run test:build`: the API Worker as `wrangler deploy` would upload it (bench/measure.mjs builds it,
// no account needed) stays within its 64 KiB gzip budget (docs/api.md part 13: every request's isolate
// loads it), and carries none of the documents Worker's renderers nor the jobs Worker's: its consumers and
// the routes the API Worker passes on to it (src/http/pass-on.ts).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { buildService, gzipKiB } from "../../bench/measure.mjs";

const BUDGET_KIB = 64;
const dir = mkdtempSync(join(tmpdir(), "api-bundle-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test(`the API Worker's bundle is at most ${BUDGET_KIB} KiB gzip and holds no renderer, consumer or route it passes on`, (t) => {
  const { script } = buildService(dir);
  const kib = gzipKiB(script);
  t.diagnostic(`${kib.toFixed(3)} KiB gzip`);
  assert.ok(
    kib <= BUDGET_KIB,
    `${kib.toFixed(3)} KiB gzip, over the budget of ${BUDGET_KIB}: make room in the API Worker, or serve the new ` +
      "routes from the jobs Worker (src/routes/jobs.ts, src/http/pass-on.ts)",
  );
  const code = readFileSync(script, "utf8");
  // Strings only the renderers write (UBL's and CII's namespaces, the PDF's PDF/A extension schema), only
  // the jobs Worker's consumer sends (push through FCM), only its statements' reader and its documents'
  // storage know (camt.053's root element, a credit note's path).
  for (const marker of [
    "urn:oasis:names:specification:ubl:schema",
    "CrossIndustryInvoice:100",
    "pdfaExtension",
    "fcm.googleapis.com",
    "BkToCstmrStmt",
    "/credit_note",
  ])
    assert.ok(!code.includes(marker), `the API bundle contains ${marker}`);
});
