// What makes the file a PDF/A-3 (ISO 19005-3, level B) and a ZUGFeRD 2 / Factur-X invoice (profile
// EN 16931): the XMP metadata with the PDF/A identification and the Factur-X extension schema, the
// sRGB output intent, and the CII invoice embedded as factur-x.xml with AFRelationship Alternative
// (the XML is an equivalent of what the pages show).
import icc from "./sRGB2014.icc";
import { xmlText } from "../xml";
import { deflate } from "./flate";
import { type PdfFile, type Ref, pdfDate, textString } from "./file";

/** Factur-X 1.0's XMP namespace (the same for ZUGFeRD 2.x). */
const FACTUR_X = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#";
export const EMBEDDED_NAME = "factur-x.xml";

export interface Description {
  title: string;
  author: string;
  subject: string;
  /** Both Info's Creator and Producer (the XMP's CreatorTool and pdf:Producer). */
  producer: string;
  /** YYYY-MM-DD: the document's creation and modification date (the invoice's, so no clock). */
  date: string;
}

/** The Info dictionary; PDF/A wants it to say what the XMP says. */
export function info(file: PdfFile, d: Description): Ref {
  return file.add(
    `<</Title ${textString(d.title)} /Author ${textString(d.author)} /Subject ${textString(d.subject)}` +
      ` /Creator ${textString(d.producer)} /Producer ${textString(d.producer)}` +
      ` /CreationDate ${pdfDate(d.date)} /ModDate ${pdfDate(d.date)}>>`,
  );
}

/** The catalog's /Metadata: an uncompressed XMP packet. */
export function metadata(file: PdfFile, d: Description): Ref {
  const xmp = new TextEncoder().encode(xmpOf(d));
  return file.addStream("/Type /Metadata /Subtype /XML", xmp);
}

// The profile, compressed once an isolate.
let compressedProfile: Promise<Uint8Array> | undefined;

/** The catalog's /OutputIntents entry: sRGB, the colour space the pages' DeviceRGB and DeviceGray mean. */
export async function outputIntent(file: PdfFile): Promise<Ref> {
  compressedProfile ??= deflate(new Uint8Array(icc));
  const profile = file.addStream("/N 3 /Filter /FlateDecode", await compressedProfile);
  return file.add(
    "<</Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (sRGB IEC61966-2.1)" +
      ` /Info (sRGB IEC61966-2.1) /RegistryName (http://www.color.org) /DestOutputProfile ${profile}>>`,
  );
}

/** The embedded CII invoice's file specification (for the catalog's /AF and /EmbeddedFiles). */
export async function embeddedInvoice(file: PdfFile, bytes: Uint8Array, date: string): Promise<Ref> {
  const stream = file.addStream(
    `/Type /EmbeddedFile /Subtype /text#2Fxml /Params <</Size ${bytes.length} /ModDate ${pdfDate(date)}>>` +
      " /Filter /FlateDecode",
    await deflate(bytes),
  );
  return file.add(
    `<</Type /Filespec /F (${EMBEDDED_NAME}) /UF ${textString(EMBEDDED_NAME)}` +
      ` /Desc ${textString("Factur-X / ZUGFeRD invoice (EN 16931)")} /AFRelationship /Alternative` +
      ` /EF <</F ${stream} /UF ${stream}>>>>`,
  );
}

// The XMP packet. Its text values pass through xmlText; the dates are the Info dictionary's.
function xmpOf(d: Description): string {
  const date = `${d.date}T00:00:00+00:00`;
  const property = (name: string, description: string) =>
    '<rdf:li rdf:parseType="Resource">' +
    `<pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType>` +
    `<pdfaProperty:category>external</pdfaProperty:category>` +
    `<pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
<pdfaid:part>3</pdfaid:part>
<pdfaid:conformance>B</pdfaid:conformance>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(d.title)}</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>${xmlText(d.author)}</rdf:li></rdf:Seq></dc:creator>
<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(d.subject)}</rdf:li></rdf:Alt></dc:description>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
<pdf:Producer>${xmlText(d.producer)}</pdf:Producer>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
<xmp:CreatorTool>${xmlText(d.producer)}</xmp:CreatorTool>
<xmp:CreateDate>${date}</xmp:CreateDate>
<xmp:ModifyDate>${date}</xmp:ModifyDate>
<xmp:MetadataDate>${date}</xmp:MetadataDate>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" \
xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
<pdfaSchema:namespaceURI>${FACTUR_X}</pdfaSchema:namespaceURI>
<pdfaSchema:prefix>fx</pdfaSchema:prefix>
<pdfaSchema:property><rdf:Seq>
${property("DocumentFileName", "The name of the embedded XML document")}
${property("DocumentType", "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER")}
${property("Version", "The actual version of the standard applying to the embedded XML document")}
${property("ConformanceLevel", "The conformance level of the embedded XML document")}
</rdf:Seq></pdfaSchema:property>
</rdf:li></rdf:Bag></pdfaExtension:schemas>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:fx="${FACTUR_X}">
<fx:DocumentType>INVOICE</fx:DocumentType>
<fx:DocumentFileName>${EMBEDDED_NAME}</fx:DocumentFileName>
<fx:Version>1.0</fx:Version>
<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}
