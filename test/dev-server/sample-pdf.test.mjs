// `npm run sample:pdf` (scripts/sample-invoice.mjs) writes its picture outside the project unless `--out`
// names a path, and prints where: a run never changes the README's tracked docs/sample-invoice.png by the
// way. The tracked picture is page 1 at the size the script draws it (827 × 1170, 100 dpi). Needs
// pdftoppm (poppler): skipped without it, failed under CI=true. Starts no dev server.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TRACKED = join(ROOT, "docs/sample-invoice.png");
const hash = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
/** A PNG's width and height, from its IHDR chunk. */
const sizeOf = (file) => {
  const bytes = readFileSync(file);
  assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG", file);
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
};
const run = (args) =>
  spawnSync(process.execPath, ["scripts/sample-invoice.mjs", ...args], { cwd: ROOT, encoding: "utf8" });

test("npm run sample:pdf writes outside the project by default, and where --out says", { timeout: 120_000 }, (t) => {
  if (spawnSync("pdftoppm", ["-v"], { stdio: "ignore" }).error) {
    assert.notEqual(process.env.CI, "true", "pdftoppm is required in CI");
    return t.skip("pdftoppm absent (apt-get install poppler-utils)");
  }
  const before = hash(TRACKED);
  const plain = run([]);
  assert.equal(plain.status, 0, plain.stderr);
  const [, written] = plain.stdout.match(/^(.+\.png): page 1 at 100 dpi, \d+ bytes \(PDF \d+ bytes\)\n$/) ?? [];
  assert.ok(written, plain.stdout);
  t.after(() => rmSync(dirname(written), { recursive: true, force: true }));
  assert.ok(written.startsWith(tmpdir()), `${written} is outside the project`);
  assert.deepEqual(sizeOf(written), [827, 1170]);
  assert.equal(hash(TRACKED), before, "the tracked picture is untouched");

  const out = join(mkdtempSync(join(tmpdir(), "sample-out-")), "page.png");
  t.after(() => rmSync(dirname(out), { recursive: true, force: true }));
  const chosen = run(["--out", out]);
  assert.equal(chosen.status, 0, chosen.stderr);
  assert.ok(chosen.stdout.startsWith(`${out}: page 1 at 100 dpi, `), chosen.stdout);
  assert.equal(hash(out), hash(written), "the same bytes each run");
  assert.ok(existsSync(TRACKED));
  assert.deepEqual(sizeOf(TRACKED), [827, 1170]);
});
