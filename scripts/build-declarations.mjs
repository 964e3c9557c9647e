// The .d.ts of a library entry of the npm package (today `countersign/agent`): one self-contained
// file that a strict consumer (`module: nodenext`, `strict`, `skipLibCheck: false`) compiles with
// nothing installed beside it but @types/node, which any Node program in TypeScript has.
//
// 1. TypeScript 7 (`@typescript/native`, the compiler `npm run typecheck` runs) emits the
//    declarations of every source file the entry reaches, with the repository's tsconfig.json, so
//    inferred types come out as the type check sees them. It does not type-check again (noCheck):
//    that is `npm run typecheck`'s job, and it keeps `npm pack` quick.
// 2. rollup-plugin-dts rolls them into one file that holds only what the entry exports and what
//    that needs. A tree of tsc's files would not do: its extensionless relative imports do not
//    resolve under nodenext, and it would carry every internal declaration, zod schemas included.
// 3. The JavaScript bundles zod and the MCP SDK, and the package does not depend on them, so the
//    declarations must not mention them either. Some exported types are written with them
//    (`RequestContext = z.input<typeof requestContextSchema>`, `PerformResult<CallToolResult>`).
//    TypeScript 6's checker (the `typescript` package, the compiler API) writes each such type
//    out as the plain structure it stands for; a named type from those packages (`CallToolResult`,
//    zod's recursive `JSONType`) becomes a local alias of the same name. Rolling up again drops
//    the schemas nothing refers to any more. The result is derived from the source at every build,
//    so it cannot drift. (Why not depend on zod and the MCP SDK instead: scripts/build-package.mjs.)
// 4. TypeScript 7 then compiles the result on its own, as a consumer would: strict, nodenext, no
//    skipLibCheck, no DOM library.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** Rounds of step 3 before giving up: each inlines one level of named types from bundled packages. */
const MAX_ROUNDS = 6;

/** Imports a declaration file may keep: Node's built-in modules (their types come from @types/node). */
const isKeptModule = (specifier) => specifier.startsWith('node:');

/** Write the rolled-up declarations of `entry` (a .ts file under `root`/src) to `outfile`. */
export async function buildDeclarations({ root, entry, outfile }) {
  await mkdir(path.join(root, '.tmp'), { recursive: true });
  // Inside the repository, so that the intermediate files resolve zod and the MCP SDK from its
  // node_modules; .tmp/ is ignored by git and by the package's "files".
  const work = await mkdtemp(path.join(root, '.tmp', 'declarations-'));
  try {
    const tree = path.join(work, 'tree');
    await emitTree({ root, entry, tree, work });
    const treeEntry = path.join(tree, path.relative(path.join(root, 'src'), entry)).replace(/\.ts$/, '.d.ts');
    const text = await inlineBundledTypes(await rollUp(treeEntry), work);
    const file = path.join(work, path.basename(outfile));
    await writeFile(file, text);
    await compileAlone(file);
    await writeFile(outfile, text);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function tsgoBin() {
  const pkgFile = require.resolve('@typescript/native/package.json');
  const { bin } = JSON.parse(ts.sys.readFile(pkgFile) ?? '{}');
  return path.join(path.dirname(pkgFile), typeof bin === 'string' ? bin : bin.tsc);
}

async function tsgo(args) {
  try {
    await run(process.execPath, [tsgoBin(), ...args], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    throw new Error(`tsc ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, { cause: error });
  }
}

async function emitTree({ root, entry, tree, work }) {
  const config = path.join(work, 'tsconfig.json');
  const tsconfig = {
    extends: path.join(root, 'tsconfig.json'),
    compilerOptions: { noEmit: false, declaration: true, emitDeclarationOnly: true, noCheck: true, declarationMap: false, outDir: tree, rootDir: path.join(root, 'src') },
    files: [entry],
    include: [],
  };
  await writeFile(config, JSON.stringify(tsconfig, null, 2));
  await tsgo(['-p', config]);
}

/** rollup-plugin-dts over `input`: one module, only what it exports, bare imports left as they are. */
async function rollUp(input) {
  const warnings = [];
  const bundle = await rollup({
    input,
    plugins: [dts()],
    external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
    onwarn: (warning) => {
      // Declaration files import each other in cycles (types may); rollup's chunking handles it.
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warnings.push(`${warning.code}: ${warning.message}`);
    },
  });
  try {
    const { output } = await bundle.generate({ format: 'es' });
    if (warnings.length > 0) throw new Error(`rolling up ${input}:\n${warnings.join('\n')}`);
    if (output.length !== 1) throw new Error(`rolling up ${input} gave ${output.length} files`);
    return output[0].code;
  } finally {
    await bundle.close();
  }
}

/** The module specifiers a declaration text imports that it may not keep. */
function bundledImports(text) {
  const sf = ts.createSourceFile('x.d.ts', text, ts.ScriptTarget.Latest, true);
  const found = new Set();
  const visit = (node) => {
    const specifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)
        ? node.moduleSpecifier.text
        : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
          ? node.argument.literal.text
          : undefined;
    if (specifier !== undefined && !isKeptModule(specifier)) found.add(specifier);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...found];
}

async function inlineBundledTypes(initial, work) {
  const session = { host: cachingHost(), aliases: new Map() };
  let text = initial;
  for (let round = 1; ; round++) {
    const remaining = bundledImports(text);
    if (remaining.length === 0) return text;
    if (round > MAX_ROUNDS) throw new Error(`declarations still import ${remaining.join(', ')} after ${MAX_ROUNDS} rounds of inlining`);
    const input = path.join(work, `round-${round}-in.d.ts`);
    const output = path.join(work, `round-${round}-out.d.ts`);
    await writeFile(input, text);
    await writeFile(output, inlineOnce(input, session));
    text = await rollUp(output);
  }
}

const OPTIONS = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  // No DOM: the declarations must not need it (step 4 checks that), and it is slow to load.
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  skipLibCheck: true,
};

/** A compiler host that parses the installed packages' declarations once for all rounds. */
function cachingHost() {
  const host = ts.createCompilerHost(OPTIONS, true);
  const cache = new Map();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!fileName.includes(`${path.sep}node_modules${path.sep}`)) return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    if (!cache.has(fileName)) cache.set(fileName, getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return cache.get(fileName);
  };
  return host;
}

const leftmost = (name) => (ts.isIdentifier(name) ? name : ts.isQualifiedName(name) ? leftmost(name.left) : ts.isPropertyAccessExpression(name) ? leftmost(name.expression) : name);
const rightmost = (name) => (ts.isQualifiedName(name) ? name.right : name);

/** One round over `file`: every type written with a bundled package's names, outside `declare const`, written out. */
function inlineOnce(file, session) {
  const program = ts.createProgram([file], OPTIONS, session.host);
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(file);
  const text = sf.text;
  const printer = ts.createPrinter({ removeComments: true });
  const bundled = bundledBindings(sf);
  const taken = new Set(topLevelNames(sf));
  const found = [];
  const visit = (node, inValue) => {
    if (ts.isImportDeclaration(node)) return;
    if (usesBundled(node, bundled)) {
      found.push({ node, inValue });
      return;
    }
    ts.forEachChild(node, (child) => visit(child, inValue || ts.isVariableStatement(node)));
  };
  visit(sf, false);
  // Types of values (`declare const schema: z.ZodObject<...>`) are left for a later round: once the
  // types that used `typeof schema` are written out, rolling up drops the schema. One that is still
  // there is exported or used, and its type is a class of the bundled package: refuse.
  const types = found.filter((f) => !f.inValue);
  if (types.length === 0) {
    throw new Error(`exported values are typed with bundled packages: ${found.map((f) => f.node.getText(sf)).join(', ')}`);
  }
  const print = (type, enclosing, flags) => {
    const node = checker.typeToTypeNode(type, enclosing, ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.IgnoreErrors | ts.NodeBuilderFlags.MultilineObjectLiterals | flags);
    if (node === undefined) throw new Error(`cannot write out ${checker.typeToString(type)}`);
    return printer.printNode(ts.EmitHint.Unspecified, node, sf);
  };
  const added = [];
  const edits = types.map(({ node }) => {
    const before = node.getText(sf);
    if (ts.isExpressionWithTypeArguments(node)) throw new Error(`cannot inline a base type from a bundled package: ${before}`);
    const alias = namedAlias(node, checker);
    let after;
    if (alias !== undefined) {
      const key = checker.getFullyQualifiedName(alias);
      after = session.aliases.get(key);
      if (after === undefined) {
        after = freeName(alias.name, taken, bundled);
        session.aliases.set(key, after);
        added.push(`type ${after} = ${print(checker.getDeclaredTypeOfSymbol(alias), node, ts.NodeBuilderFlags.InTypeAlias)};`);
      }
    } else {
      after = print(checker.getTypeFromTypeNode(node), node, ts.NodeBuilderFlags.InTypeAlias);
      if (after === before) throw new Error(`cannot write out ${before}: it is not a type alias of the bundled package`);
    }
    return { start: node.getStart(sf), end: node.end, text: after };
  });
  // Named imports that now have a local alias of the same name go, so the two do not clash.
  for (const statement of sf.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const named = statement.importClause?.namedBindings;
    if (named === undefined || !ts.isNamedImports(named)) continue;
    const kept = named.elements.filter((e) => !added.some((a) => a.startsWith(`type ${e.name.text} =`)));
    if (kept.length === named.elements.length) continue;
    const clause = statement.importClause;
    const parts = [...(clause.name === undefined ? [] : [clause.name.text]), ...(kept.length === 0 ? [] : [`{ ${kept.map((e) => e.getText(sf)).join(', ')} }`])];
    const replacement = parts.length === 0 ? '' : `import ${clause.isTypeOnly ? 'type ' : ''}${parts.join(', ')} from ${statement.moduleSpecifier.getText(sf)};`;
    edits.push({ start: statement.getStart(sf), end: statement.end, text: replacement });
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return `${out}\n${added.join('\n')}\n`;
}

/** Local names bound by imports of modules the declarations may not keep. */
function bundledBindings(sf) {
  const names = new Set();
  for (const statement of sf.statements) {
    if (!ts.isImportDeclaration(statement) || isKeptModule(statement.moduleSpecifier.text)) continue;
    const clause = statement.importClause;
    if (clause?.name !== undefined) names.add(clause.name.text);
    const bindings = clause?.namedBindings;
    if (bindings !== undefined && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    if (bindings !== undefined && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.add(e.name.text);
  }
  return names;
}

function usesBundled(node, bundled) {
  if (ts.isTypeReferenceNode(node)) return bundled.has(leftmost(node.typeName).text);
  if (ts.isTypeQueryNode(node)) return bundled.has(leftmost(node.exprName).text);
  if (ts.isExpressionWithTypeArguments(node)) return ts.isIdentifier(leftmost(node.expression)) && bundled.has(leftmost(node.expression).text);
  if (ts.isImportTypeNode(node)) return ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal) && !isKeptModule(node.argument.literal.text);
  return false;
}

/** The type alias a reference without type arguments names (`CallToolResult`, `z.core.util.JSONType`), if it is one. */
function namedAlias(node, checker) {
  if (node.typeArguments !== undefined && node.typeArguments.length > 0) return undefined;
  const name = ts.isTypeReferenceNode(node) ? rightmost(node.typeName) : ts.isImportTypeNode(node) && node.qualifier !== undefined ? rightmost(node.qualifier) : undefined;
  if (name === undefined) return undefined;
  let symbol = checker.getSymbolAtLocation(name);
  if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol !== undefined && symbol.flags & ts.SymbolFlags.TypeAlias ? symbol : undefined;
}

function topLevelNames(sf) {
  const names = [];
  for (const statement of sf.statements) {
    if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) names.push(d.name.getText(sf));
    else if (statement.name !== undefined && ts.isIdentifier(statement.name)) names.push(statement.name.text);
  }
  return names;
}

/** `name` itself when free (or held only by the bundled import it replaces), else `name_2`, ... */
function freeName(name, taken, bundled) {
  let candidate = name;
  for (let n = 2; taken.has(candidate) || (bundled.has(candidate) && candidate !== name); n++) candidate = `${name}_${n}`;
  taken.add(candidate);
  return candidate;
}

async function compileAlone(file) {
  await tsgo(['--ignoreConfig', file, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2023', '--types', 'node']);
}

