// Reading the service's PDFs back in workerd, as little as the tests need: the embedded file's bytes.
// (Node's tests read them with poppler, an independent reader: test/einvoice.)

const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

async function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The bytes of the stream of the one object whose dictionary has `/Type /EmbeddedFile`, inflated. */
export async function embeddedFile(pdf: Uint8Array): Promise<Uint8Array> {
  const text = latin1(pdf);
  const found = /\/Type \/EmbeddedFile[\s\S]*?\/Length (\d+)>>\nstream\n/.exec(text);
  if (!found) throw new Error("no embedded file");
  const start = found.index + found[0].length;
  return inflate(pdf.subarray(start, start + Number(found[1])));
}
