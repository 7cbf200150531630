// The e-invoice renderers (src/documents) against the official rules: a fixture of every kind of
// document the service issues (voucher invoices in category O and S, production and shipping fees in S
// and Z, both payment methods, with and without the buyer's VAT id and buyer reference, and the credit
// note of each), rendered in UBL and CII, checked here for totals and lines, then all passed to the
// offline validator (EN 16931 + XRechnung 3.0) in one call. The validator lives outside the repository
// and is named by EINVOICE_VALIDATE (scripts/einvoice-validator.mjs). Without it the validation is
// skipped, except in CI (CI=true), where it is required.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { einvoiceValidator, validatorRequired } from "../../scripts/einvoice-validator.mjs";
import { importSource } from "../../scripts/import-source.mjs";
import { DOCUMENTS } from "./fixtures.mjs";
import { BUYER, SELLER } from "./parties.mjs";

const { renderUbl, renderCii, el, serialize, formatCents } = await importSource(
  [
    'export { renderUbl } from "./src/documents/ubl";',
    'export { renderCii } from "./src/documents/cii";',
    'export { el, serialize } from "./src/documents/xml";',
    'export { formatCents } from "./src/domain/money";',
  ].join("\n"),
);

// --- Reading the documents back, as little as the assertions need.

const SYNTAXES = {
  ubl: {
    render: (doc) => renderUbl(doc),
    line: /<cac:(?:Invoice|CreditNote)Line>([\s\S]*?)<\/cac:(?:Invoice|CreditNote)Line>/g,
    lineFields: {
      position: "cbc:ID",
      description: "cbc:Name",
      quantity: "cbc:(?:Invoiced|Credited)Quantity",
      unitPrice: "cbc:PriceAmount",
      net: "cbc:LineExtensionAmount",
    },
    totals: {
      net: "cbc:TaxExclusiveAmount",
      vat: "cbc:TaxAmount",
      gross: "cbc:TaxInclusiveAmount",
      payable: "cbc:PayableAmount",
    },
  },
  cii: {
    render: (doc) => renderCii(doc),
    line: /<ram:IncludedSupplyChainTradeLineItem>([\s\S]*?)<\/ram:IncludedSupplyChainTradeLineItem>/g,
    lineFields: {
      position: "ram:LineID",
      description: "ram:Name",
      quantity: "ram:BilledQuantity",
      unitPrice: "ram:ChargeAmount",
      net: "ram:LineTotalAmount",
    },
    totals: {
      net: "ram:TaxBasisTotalAmount",
      vat: "ram:TaxTotalAmount",
      gross: "ram:GrandTotalAmount",
      payable: "ram:DuePayableAmount",
    },
  },
};

const decode = (text) =>
  text.replace(/&(lt|gt|quot|amp);/g, (_, name) => ({ lt: "<", gt: ">", quot: '"', amp: "&" })[name]);

/** How a text is written as XML text: the escaping the serializer must apply. */
function escaped(text) {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The text of the first element named by `tag` (a regex source) in `xml`. */
function value(xml, tag) {
  const match = new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</`).exec(xml);
  assert.ok(match, `no <${tag}> in\n${xml}`);
  return decode(match[1]);
}

test("every document renders deterministically, with the input's totals, lines and parties", () => {
  for (const [name, doc] of DOCUMENTS) {
    for (const [syntax, { render, line, lineFields, totals }] of Object.entries(SYNTAXES)) {
      const label = `${name}.${syntax}`;
      const xml = render(doc);
      assert.equal(render(structuredClone(doc)), xml, `${label}: same input, same bytes`);
      assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n'), label);
      assert.ok(xml.includes(`>${doc.number}<`), `${label}: number`);
      assert.equal(value(xml, totals.net), formatCents(doc.netCents), `${label}: net total`);
      assert.equal(value(xml, totals.vat), formatCents(doc.vatCents), `${label}: VAT total`);
      assert.equal(value(xml, totals.gross), formatCents(doc.grossCents), `${label}: gross total`);
      assert.equal(value(xml, totals.payable), formatCents(doc.grossCents), `${label}: amount due`);
      const rendered = [...xml.matchAll(line)].map(([, block]) => ({
        position: Number(value(block, lineFields.position)),
        description: value(block, lineFields.description),
        quantity: Number(value(block, lineFields.quantity)),
        unitPrice: value(block, lineFields.unitPrice),
        net: value(block, lineFields.net),
      }));
      const expected = doc.lines.map((l) => ({
        position: l.position,
        description: l.description,
        quantity: l.quantity,
        unitPrice: formatCents(l.unitPriceCents),
        net: formatCents(l.netCents),
      }));
      assert.deepEqual(rendered, expected, `${label}: lines`);
      assert.ok(xml.includes(escaped(doc.buyer.legalName)), `${label}: buyer name, escaped`);
      // Category O: no VAT id of either party (BR-O-02); S and Z: the seller's, and the buyer's when set.
      const notSubject = doc.lines[0].vatCategory === "O";
      assert.equal(xml.includes(SELLER.vatId), !notSubject, `${label}: seller VAT id`);
      assert.equal(xml.includes(BUYER.vatId), !notSubject && doc.buyer.vatId !== null, `${label}: buyer VAT id`);
      assert.ok(xml.includes(SELLER.registrationId), `${label}: seller registration id`);
      assert.ok(xml.includes(`>${escaped(doc.buyerReference)}<`), `${label}: buyer reference`);
    }
  }
});

test("the serializer escapes every value and drops characters XML 1.0 cannot carry", () => {
  const xml = serialize(
    el(
      "a",
      { b: `x"<&>\t\n\r`, c: null },
      el("t", null, "T & <b> ]]> \r\n \u0001\u0008\u000b\ufffe\uffff\ud800 ok ß 😀"),
      el("empty", {}),
      [el("n", null, "1"), false, null, [el("n", null, "2")]],
    ),
  );
  assert.equal(
    xml,
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<a b="x&quot;&lt;&amp;&gt;&#x9;&#xA;&#xD;">',
      "  <t>T &amp; &lt;b&gt; ]]&gt; &#xD;\n  ok ß 😀</t>",
      "  <empty/>",
      "  <n>1</n>",
      "  <n>2</n>",
      "</a>",
      "",
    ].join("\n"),
  );
  assert.throws(() => el("a b", null), /not an XML name/);
  assert.throws(() => el("a", { "x=y": "1" }), /not an XML name/);
  assert.throws(() => el("a", null, "text", el("b", null)), /mixed content/);
});

test("the official validator (EN 16931 + XRechnung 3.0) accepts every document", (t) => {
  const found = einvoiceValidator();
  const required = validatorRequired();
  if (found.absent) {
    assert.ok(!required, `the e-invoice validator is required in CI, but absent: ${found.absent}`);
    return t.skip(`e-invoice validator absent (${found.absent})`);
  }
  const dir = mkdtempSync(join(tmpdir(), "einvoice-"));
  try {
    const files = DOCUMENTS.flatMap(([name, doc]) =>
      Object.entries(SYNTAXES).map(([syntax, { render }]) => {
        const file = join(dir, `${name}.${syntax}.xml`);
        writeFileSync(file, render(doc));
        return file;
      }),
    );
    const run = spawnSync(found.path, files, { encoding: "utf8", timeout: 300_000 });
    const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.replaceAll(`${dir}/`, "");
    if (run.status === 2 && !required) return t.skip(`e-invoice validator cannot run: ${output.trim()}`);
    assert.equal(run.status, 0, `the validator refused documents:\n${output}`);
    assert.equal(output.match(/^valid /gm)?.length, files.length, output);
    // Warnings do not fail a document; each distinct one is shown once, with the documents it concerns.
    const warnings = new Map();
    let file = "";
    for (const line of output.split("\n")) {
      if (line.startsWith("valid ")) file = line.split(" ")[1].replace(/\.xml$/, "");
      const warning = /^ {2}\S+ \[(\w+)\] \S+: (.*)$/.exec(line);
      if (warning) {
        const key = `${warning[1]}: ${warning[2]}`;
        warnings.set(key, [...(warnings.get(key) ?? []), file]);
      }
    }
    for (const [warning, where] of warnings)
      t.diagnostic(`${warning} (${where.length} of ${files.length} documents: ${where.join(", ")})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
