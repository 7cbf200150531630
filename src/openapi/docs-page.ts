/**
 * An interactive reference over /openapi.json: Scalar's standalone bundle from its CDN, pinned to
 * one version and checked by Subresource Integrity (the hash of that file in the npm package), so
 * that a changed file on the CDN is refused rather than run on this origin.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>API reference</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser/standalone.js" integrity="sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK" crossorigin="anonymous"></script>
</body>
</html>`;
