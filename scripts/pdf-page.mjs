// Page 1 of a PDF drawn as a PNG by poppler's pdftoppm: the README's pictures (scripts/sample-*.mjs).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// 100 dpi: A4 as 827 × 1170 pixels, the footer's 7 pt still legible, the file about 150 KB.
export const DPI = 100;

/** Exits 1, saying how to install it, where pdftoppm is missing (before anything is rendered). */
export function requirePdftoppm() {
  if (!spawnSync("pdftoppm", ["-v"], { stdio: "ignore" }).error) return;
  console.error("pdftoppm is missing: apt-get install -y poppler-utils (Homebrew: brew install poppler)");
  process.exit(1);
}

/** Draws page 1 of `pdf` (bytes) into `png`, keeping a copy of the PDF at `keepPdf` if given. */
export function drawFirstPage(pdf, png, keepPdf) {
  const dir = mkdtempSync(join(tmpdir(), "pdf-page-"));
  try {
    const file = join(dir, "page.pdf");
    writeFileSync(file, pdf);
    if (keepPdf) copyFileSync(file, keepPdf);
    // -singlefile: the name without a page number suffix; pdftoppm adds ".png".
    const out = join(dir, "page");
    const drawn = spawnSync("pdftoppm", ["-png", "-r", String(DPI), "-f", "1", "-l", "1", "-singlefile", file, out], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    if (drawn.status !== 0) throw new Error(`pdftoppm exited with ${drawn.status ?? drawn.signal}`);
    copyFileSync(`${out}.png`, png);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
