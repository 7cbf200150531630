/**
 * An interactive reference over /openapi.json: Scalar's standalone bundle from the pinned npm
 * package, served by this Worker's static assets (assets/docs/, filled by scripts/build-assets.mjs),
 * so the page makes no request to another host. Without JavaScript, or when the bundle does not
 * load, the fallback paragraph stays and points at the document itself.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<p id="docs-fallback">The interactive API reference needs JavaScript.
The OpenAPI 3.1 document is at <a href="/openapi.json">/openapi.json</a>.</p>
<div id="docs"></div>
<script src="/docs/init.js"></script>
<script src="/docs/scalar-standalone.js"></script>
</body>
</html>`;

/**
 * The page's Content-Security-Policy, what Scalar needs and no more (checked in Chromium by
 * test/browser/docs.browser.mjs): scripts only from this origin, no inline script and no eval;
 * inline styles, since Scalar injects its stylesheet as <style> elements and sets style attributes;
 * fetches to this origin (/openapi.json, "Test Request"); images from this origin (the favicon).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
