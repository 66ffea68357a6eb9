/**
 * The size of the code's units: source files over 500 lines and functions over 80 lines, outside tests,
 * migrations, generated code and translations (issue 36's rule for code a newcomer can read).
 * `npx tsx scripts/unit-sizes.ts` prints them; test/architecture.test.ts holds the rule.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 500;
export const MAX_FUNCTION_LINES = 80;

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PACKAGES = ['billing-service', 'capture-service', 'widget', 'console', 'checkout-react', 'demo-site', 'scripts', 'faults'];

/** Files the rule does not cover, each with its reason. */
export const EXEMPT: Array<{ pattern: RegExp; reason: string }> = [
  { pattern: /(^|\/)(test|tests|e2e)\//, reason: 'tests' },
  { pattern: /\.(test|spec)\.tsx?$/, reason: 'tests' },
  { pattern: /^faults\//, reason: 'the fault test (a test: scripted phases against a cluster)' },
  { pattern: /\/db\/migrations\//, reason: 'migrations: history, never edited' },
  { pattern: /\/db\/schema\.ts$/, reason: 'generated table types' },
  { pattern: /\/(i18n|locales|translations)\//, reason: 'translation files' },
  { pattern: /\/messages\/[a-z]{2}(-[A-Z]{2})?\.ts$/, reason: 'translation files' },
];

export function exemption(file: string): string | undefined {
  return EXEMPT.find((entry) => entry.pattern.test(file))?.reason;
}

export function sourceFiles(): string[] {
  return PACKAGES.flatMap((pkg) => {
    const dir = path.join(ROOT, pkg);
    try {
      return readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
        .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
        .filter((file) => !/(^|\/)(node_modules|dist|test-results|playwright-report)\//.test(file));
    } catch {
      return [];
    }
  });
}

export interface LongUnit {
  file: string;
  name: string;
  lines: number;
}

/** Functions (declarations, methods, arrows, function expressions) longer than `max` lines in one source text. */
export function longFunctions(file: string, text: string, max = MAX_FUNCTION_LINES): LongUnit[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: LongUnit[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ file, name: functionName(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

export function measure() {
  const longFiles: LongUnit[] = [];
  const longFns: LongUnit[] = [];
  for (const file of sourceFiles()) {
    if (exemption(file)) continue;
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) longFiles.push({ file, name: '', lines });
    longFns.push(...longFunctions(file, text));
  }
  return { longFiles, longFunctions: longFns };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { longFiles, longFunctions: fns } = measure();
  console.log(`files over ${MAX_FILE_LINES} lines: ${longFiles.length}`);
  for (const unit of longFiles.sort((a, b) => b.lines - a.lines)) console.log(`  ${unit.lines}\t${unit.file}`);
  console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${fns.length}`);
  for (const unit of fns.sort((a, b) => b.lines - a.lines)) console.log(`  ${unit.lines}\t${unit.file}\t${unit.name}`);
}
