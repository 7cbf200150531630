// The headless Chromium of the browser tests (*.browser.mjs): Debian's package, /usr/bin/chromium (or
// CHROMIUM), driven by playwright-core, with no name resolving but the test server's address.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
/** Where the tests' wrangler dev listens: the one host Chromium reaches. */
export const HOST = "127.0.0.1";

export function launchChromium() {
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium (or set CHROMIUM)`,
  );
  return chromium.launch({
    executablePath: CHROMIUM,
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
