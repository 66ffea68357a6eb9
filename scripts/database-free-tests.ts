import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What reaches a database from a test file: the shared test app and database helpers, the database opener,
 * the database drivers, and the programs that open their own (start-billing, main). Conservative on purpose:
 * a file matched by mistake only runs once more.
 */
const DATABASE_MARKERS =
  /test-app|test-database|openDatabase|start-billing|startBilling|\/main\.js|@electric-sql\/pglite|from 'pg'|@renew\/billing-service\/db|RENEW_TEST_POSTGRES_URL|DATABASE_URL/;
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The file behind a relative import ('./x.js' is x.ts on disk). */
function resolveImport(from: string, specifier: string): string | undefined {
  const target = path.resolve(path.dirname(from), specifier);
  return [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, path.join(target, 'index.ts')].find(
    (candidate) => candidate.endsWith('.ts') && existsSync(candidate),
  );
}

/**
 * Whether a test file, or any test-side file it imports (its relative imports outside src/, followed
 * transitively), reaches a database. Code under src/ is not followed: importing a module that could
 * use a database does not open one; opening one takes a helper or opener the markers name.
 */
function touchesDatabase(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  if (DATABASE_MARKERS.test(text)) return true;
  for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
    const target = specifier === undefined ? undefined : resolveImport(file, specifier);
    if (target && !target.split(path.sep).includes('src') && touchesDatabase(target, seen)) return true;
  }
  return false;
}

/** A package's test files that never reach a database (paths relative to the package): the PostgreSQL pass leaves them out. */
export function databaseFreeTests(packageRoot: string): string[] {
  const dir = path.join(packageRoot, 'test');
  if (!existsSync(dir)) return [];
  return testFiles(dir)
    .filter((file) => !touchesDatabase(file))
    .map((file) => path.relative(packageRoot, file))
    .sort();
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  for (const pkg of process.argv.slice(2)) for (const file of databaseFreeTests(pkg)) console.log(path.join(pkg, file));
}
