// /docs: mounts Scalar's API reference (docs/scalar-standalone.js, the next script) over
// /openapi.json. A file of this origin rather than an inline script, so that the page keeps
// `script-src 'self'`. It runs before the bundle and mounts once the page is parsed.

// The zod inside the bundle probes for eval (`Function("")`, caught) unless told it is jitless; the
// probe would otherwise be a (harmless) violation of the page's Content-Security-Policy.
globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, jitless: true };

document.addEventListener("DOMContentLoaded", () => {
  if (typeof Scalar === "undefined") return; // the bundle did not load: the fallback text stays
  document.getElementById("docs-fallback").remove();
  Scalar.createApiReference("#docs", {
    url: "/openapi.json",
    withDefaultFonts: false, // no fonts.scalar.com: the system font stack
    telemetry: false,
    agent: { disabled: true }, // the AI chat, on by default on localhost
    mcp: { disabled: true },
    showDeveloperTools: "never", // the toolbar shown by default on localhost
    hideClientButton: true, // "Open API Client" links to client.scalar.com
    // Every operation but /health needs the bearer token: open with its field, not "No authentication selected".
    authentication: { preferredSecurityScheme: "bearerAuth" },
  });
});
