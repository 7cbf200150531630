// The headless Chromium of the browser tests (*.browser.mjs), driven by playwright-core, with no name
// resolving but the test server's address. Which Chromium:
// - CHROMIUM, when set: that executable (Debian's /usr/bin/chromium, a Chrome on a Mac, ...);
// - otherwise, on Linux x64, the one the devDependency @sparticuz/chromium ships inside its npm package
//   (no download at install or run time, no apt, pinned by the lockfile): inflated on first use into
//   node_modules/.cache/, with the libraries (NSS, expat) and the font it brings, so it runs on a Linux
//   that has nothing but Node;
// - otherwise none: each browser test skips, saying why in one line, except under CI=true, where it fails.
import assert from "node:assert/strict";
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { createBrotliDecompress } from "node:zlib";
import { chromium } from "playwright-core";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PACKAGE = "@sparticuz/chromium";
/** Where the tests' wrangler dev listens: the one host Chromium reaches. */
export const HOST = "127.0.0.1";

/** Whether a missing Chromium fails the browser tests rather than skips them. */
export const chromiumRequired = () => process.env.CI === "true";

/** `{ path }` of @sparticuz/chromium's bin/ folder, or `{ absent }`: why there is none. */
function npmChromium() {
  if (`${process.platform}-${process.arch}` !== "linux-x64")
    return { absent: `${PACKAGE} has no Chromium for ${process.platform}-${process.arch}: set CHROMIUM` };
  let entry;
  try {
    entry = createRequire(join(ROOT, "package.json")).resolve(PACKAGE); // .../build/index.js
  } catch {
    return { absent: `${PACKAGE} is not installed (npm ci), and CHROMIUM is not set` };
  }
  return { path: join(dirname(entry), "..", "bin"), version: createRequire(entry)("../package.json").version };
}

/**
 * Which Chromium the browser tests run: `{ executable }` (CHROMIUM) or `{ npm }` (@sparticuz/chromium's
 * bin/), or `{ absent }`: why there is none. Call it where the tests are declared, to skip them.
 */
export function findChromium() {
  const configured = process.env.CHROMIUM;
  if (configured)
    return existsSync(configured) ? { executable: configured } : { absent: `CHROMIUM=${configured} does not exist` };
  const found = npmChromium();
  return found.absent ? found : { npm: found };
}

/** A `node:test` option: skip with the reason when there is no Chromium, except under CI=true. */
export function skipWithoutChromium() {
  const found = findChromium();
  if (!found.absent) return false;
  assert.ok(!chromiumRequired(), `Chromium is required in CI, but absent: ${found.absent}`);
  return `no Chromium: ${found.absent}`;
}

/**
 * @sparticuz/chromium's brotli-compressed Chromium, its libraries and its font, inflated once per version
 * into node_modules/.cache/ (built aside and renamed into place, so that concurrent test files never see
 * half of it). Its swiftshader (WebGL) is left out: the tests run with --disable-gpu.
 */
async function inflateNpmChromium({ path: bin, version }) {
  const dir = join(ROOT, "node_modules/.cache/sparticuz-chromium", version);
  if (!existsSync(join(dir, "chromium"))) {
    const building = `${dir}.${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    // tar-fs: @sparticuz/chromium's own dependency, resolved from it.
    const { extract } = createRequire(join(bin, "..", "package.json"))("tar-fs");
    const inflate = (file, target) => pipeline(createReadStream(join(bin, file)), createBrotliDecompress(), target);
    await Promise.all([
      inflate("chromium.br", createWriteStream(join(building, "chromium"), { mode: 0o755 })),
      // lib/: libnss3, libnspr4, libexpat and the like, which a bare Linux lacks.
      inflate("al2023.tar.br", extract(building, { chown: false })),
      inflate("fonts.tar.br", extract(building, { chown: false })),
    ]);
    // The package's fonts.conf names /tmp/fonts; this one names its fonts beside it (and the system's,
    // where there are any, for the glyphs Open Sans lacks).
    writeFileSync(
      join(building, "fonts.conf"),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
        `  <dir>${join(dir, "fonts")}</dir>\n  <dir>/usr/share/fonts</dir>\n` +
        `  <cachedir>${join(dir, "fonts-cache")}</cachedir>\n</fontconfig>\n`,
    );
    try {
      renameSync(building, dir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(join(dir, "chromium"))) throw error; // not another test file's inflating first
    }
  }
  return {
    executablePath: join(dir, "chromium"),
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [join(dir, "lib"), process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
      FONTCONFIG_PATH: dir,
    },
  };
}

export async function launchChromium() {
  const found = findChromium();
  assert.ok(!found.absent, `no Chromium: ${found.absent}`);
  const { executablePath, env } = found.npm
    ? await inflateNpmChromium(found.npm)
    : { executablePath: found.executable };
  return chromium.launch({
    executablePath,
    env,
    // No name resolves but the test server's address, and Chromium's own background connections
    // (to Google) stay off: nothing leaves the machine even beside the routes each test refuses.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${HOST}`,
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
