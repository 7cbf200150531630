// zlib streams (PDF's FlateDecode, WOFF's tables) through the Compression Streams API, which Workers
// and Node both have: no library, no Node module.

const through = async (bytes: Uint8Array, transform: CompressionStream | DecompressionStream) =>
  new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(transform)).arrayBuffer());

export const deflate = (bytes: Uint8Array) => through(bytes, new CompressionStream("deflate"));
export const inflate = (bytes: Uint8Array) => through(bytes, new DecompressionStream("deflate"));
