// `npm test` runs this first: no import cycle in src/ and test/ (type-only imports count), no export of
// src/ nobody imports, no src/ file over 300 lines or 120 characters a line, and one compatibility date
// for every wrangler config (the baselines must run on the service's runtime behaviour).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
// Entry points: imported by the runtime or the tooling (drizzle-kit, build-assets, the other Workers).
const ENTRY_EXPORTS = new Set([
  "src/index.ts:default",
  "src/jobs/index.ts:default",
  "src/documents/worker.ts:*",
  "src/db/schema.ts:*",
  "src/openapi/document.ts:openApiDocument",
]);

const files = ["src", "test"]
  .flatMap((dir) => walk(join(ROOT, dir)))
  .filter((file) => /\.ts$/.test(file) && !file.endsWith(".d.ts"));

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, join(base, "index.ts")].find(
    (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
  );
}

const edges = new Map(); // file -> Set<file>
const exported = new Map(); // file -> Set<name>
const used = new Map(); // file -> Set<name> ("*" for a namespace import or re-export)

for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const targets = new Set();
  const names = new Set();
  const use = (target, name) => (used.get(target) ?? used.set(target, new Set()).get(target)).add(name);
  for (const statement of source.statements) {
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    const isExported = modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isImportDeclaration(statement) || (ts.isExportDeclaration(statement) && statement.moduleSpecifier)) {
      const target = resolveImport(file, statement.moduleSpecifier.text);
      if (!target) continue;
      targets.add(target);
      const clause = ts.isImportDeclaration(statement) ? statement.importClause : statement;
      if (ts.isImportDeclaration(statement)) {
        if (clause?.name) use(target, "default");
        const bindings = clause?.namedBindings;
        if (!bindings || ts.isNamespaceImport(bindings)) use(target, "*");
        else for (const element of bindings.elements) use(target, (element.propertyName ?? element.name).text);
      } else {
        const exports = statement.exportClause;
        if (!exports || !ts.isNamedExports(exports)) use(target, "*");
        else
          for (const element of exports.elements)
            use(target, (element.propertyName ?? element.name).text), names.add(element.name.text);
      }
    } else if (isExported) {
      if (modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) names.add("default");
      else if (ts.isVariableStatement(statement))
        for (const d of statement.declarationList.declarations) names.add(d.name.getText(source));
      else if (statement.name) names.add(statement.name.text);
    } else if (ts.isExportAssignment(statement)) names.add("default");
    else if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.add(element.name.text);
    }
  }
  // import("...") types, e.g. `typeof import("../src/index")` in declarations, are edges too.
  source.forEachChild(function visit(node) {
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolveImport(file, node.argument.literal.text);
      if (target) targets.add(target), use(target, "*");
    }
    node.forEachChild(visit);
  });
  edges.set(file, targets);
  exported.set(file, names);
}

// Tarjan's strongly connected components: any component of two or more files is a cycle.
const cycles = [];
{
  let index = 0;
  const state = new Map();
  const stack = [];
  const connect = (file) => {
    state.set(file, { index, low: index, onStack: true });
    index++;
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (!state.has(next)) {
        connect(next);
        state.get(file).low = Math.min(state.get(file).low, state.get(next).low);
      } else if (state.get(next).onStack) state.get(file).low = Math.min(state.get(file).low, state.get(next).index);
    }
    if (state.get(file).low === state.get(file).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        state.get(member).onStack = false;
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || edges.get(file)?.has(file)) cycles.push(component);
    }
  };
  for (const file of files) if (!state.has(file)) connect(file);
}

const rel = (file) => relative(ROOT, file);
const unused = [];
for (const [file, names] of exported) {
  if (!rel(file).startsWith("src/") || ENTRY_EXPORTS.has(`${rel(file)}:*`)) continue;
  const users = used.get(file) ?? new Set();
  for (const name of names)
    if (!users.has(name) && !users.has("*") && !ENTRY_EXPORTS.has(`${rel(file)}:${name}`))
      unused.push(`${rel(file)}: ${name}`);
}

const compatibilityDate = (file) => readFileSync(file, "utf8").match(/^compatibility_date = "(.+)"$/m)?.[1];
const configs = [
  join(ROOT, "wrangler.jobs.toml"),
  join(ROOT, "wrangler.documents.toml"),
  ...["bench", "test"].flatMap((dir) => walk(join(ROOT, dir))).filter((file) => file.endsWith(".toml")),
];
const misdated = configs.filter((file) => compatibilityDate(file) !== compatibilityDate(join(ROOT, "wrangler.toml")));

// One number of attempts: each delivery queue's max_retries + 1 is retry.ts's MAX_ATTEMPTS, which the
// slow lane's count across lanes and the OpenAPI document rely on.
const toml = readFileSync(join(ROOT, "wrangler.jobs.toml"), "utf8");
const maxAttempts = Number(readFileSync(join(ROOT, "src/events/retry.ts"), "utf8").match(/MAX_ATTEMPTS = (\d+)/)?.[1]);
const retries = [
  ...toml.matchAll(/^queue = "(voucher-billing-(?:events|deliveries-slow))"\n(?:\w.*\n)*?max_retries = (\d+)/gm),
];
const miscounted =
  retries.length === 2
    ? retries.filter(([, , n]) => Number(n) + 1 !== maxAttempts)
    : [["", "wrangler.jobs.toml's delivery queues", "?"]];

// Files a reader takes in whole: at most 300 lines in src/, none longer than 120 characters.
const MAX_LINES = 300;
const MAX_WIDTH = 120;
const oversized = [];
for (const file of files.filter((f) => rel(f).startsWith("src/"))) {
  const lines = readFileSync(file, "utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length > MAX_LINES) oversized.push(`${rel(file)}: ${lines.length} lines, over ${MAX_LINES}`);
  lines.forEach((line, i) => {
    if ([...line].length > MAX_WIDTH) oversized.push(`${rel(file)}:${i + 1}: over ${MAX_WIDTH} characters`);
  });
}

for (const cycle of cycles) console.error(`import cycle: ${cycle.map(rel).sort().join(" -> ")}`);
for (const line of oversized) console.error(line);
for (const line of unused) console.error(`exported but imported nowhere else: ${line}`);
for (const file of misdated)
  console.error(
    `${rel(file)}: compatibility_date ${compatibilityDate(file)} ` +
      `is not wrangler.toml's ${compatibilityDate(join(ROOT, "wrangler.toml"))}`,
  );
for (const [, queue, n] of miscounted)
  console.error(`${queue}: max_retries ${n} + 1 is not MAX_ATTEMPTS (${maxAttempts}) of src/events/retry.ts`);
if (cycles.length || unused.length || misdated.length || miscounted.length || oversized.length) process.exit(1);
console.log(
  `house: ${files.length} files, no import cycle, every export of src/ imported elsewhere, ` +
    `no file of src/ over ${MAX_LINES} lines or ${MAX_WIDTH} characters a line, ` +
    `${configs.length + 1} wrangler configs on ${compatibilityDate(join(ROOT, "wrangler.toml"))}`,
);
