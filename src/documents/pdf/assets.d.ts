// Binary assets the documents Worker bundles: wrangler's Data rule (wrangler.documents.toml) makes them
// ArrayBuffers, esbuild's binary loader (scripts) Uint8Arrays; the code reads either through Uint8Array.
declare module "*.woff" {
  const bytes: ArrayBuffer | Uint8Array;
  export default bytes;
}
declare module "*.icc" {
  const bytes: ArrayBuffer | Uint8Array;
  export default bytes;
}
