import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TS_CONFIG = path.join(ROOT, 'tsconfig.json');
const PACKAGE = '@renew/billing-service';

/** The module graph of a folder of TypeScript, `.js` specifiers resolved to the `.ts` files (NodeNext). */
async function graphOf(folder: string) {
  return madge(folder, { fileExtensions: ['ts'], tsConfig: TS_CONFIG });
}

/** Every `.ts` file under a folder, without dependencies, builds or test output. */
function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !/[/\\](node_modules|dist|test-results)[/\\]/.test(path.relative(ROOT, file)));
}

/** Each import of the billing service in a file: `@renew/billing-service` or `@renew/billing-service/<entry>`. */
function billingSpecifiers(source: string): string[] {
  return [...source.matchAll(/(?:from\s+|import\s*\(?\s*)['"](@renew\/billing-service(?:\/[^'"]*)?)['"]/g)].map((match) => match[1]!);
}

/** The package entry a specifier asks for (`./http`), and whether package.json exports it. */
function unexported(specifiers: string[], exportKeys: string[]): string[] {
  return specifiers.filter((specifier) => !exportKeys.includes(`.${specifier.slice(PACKAGE.length)}`));
}

describe('no import circle', () => {
  const temporary: string[] = [];
  afterAll(() => temporary.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('is detected when there is one (the check can fail)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'renew-circle-'));
    temporary.push(dir);
    writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
    writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a.js';\nexport const b = () => a;\n");
    expect((await graphOf(dir)).circular()).toEqual([['a.ts', 'b.ts']]);
  });

  for (const folder of ['billing-service/src', 'capture-service/src', 'widget/src']) {
    it(`in ${folder}`, async () => {
      const graph = await graphOf(path.join(ROOT, folder));
      // The graph is real: every file is in it and the `.js` specifiers were resolved to files.
      const files = Object.keys(graph.obj());
      expect(files.length).toBe(typeScriptFiles(path.join(ROOT, folder)).length);
      expect(Object.values(graph.obj()).flat().length).toBeGreaterThan(files.length / 2);
      expect(graph.circular()).toEqual([]);
    }, 60_000);
  }
});

describe("the billing service's named surface", () => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'billing-service/package.json'), 'utf8')) as { exports: Record<string, string> };
  const exportKeys = Object.keys(manifest.exports);

  it('is a list of named entries, without a wildcard', () => {
    expect(exportKeys.length).toBeGreaterThan(0);
    expect(exportKeys.filter((key) => key.includes('*'))).toEqual([]);
    // Each entry is a file that exists (a typo here would break every importer).
    for (const target of Object.values(manifest.exports)) expect(() => readFileSync(path.join(ROOT, 'billing-service', target))).not.toThrow();
  });

  it('recognises an import of an internal path (the check can fail)', () => {
    const source = "import { findCustomerRow } from '@renew/billing-service/customers/repository.js';\nimport { ApiError } from '@renew/billing-service/http';\n";
    expect(unexported(billingSpecifiers(source), exportKeys)).toEqual(['@renew/billing-service/customers/repository.js']);
  });

  it('is all that capture-service, widget, demo-site, scripts and e2e import', () => {
    const files = ['capture-service', 'widget', 'demo-site', 'scripts', 'e2e'].flatMap((folder) => typeScriptFiles(path.join(ROOT, folder)));
    const imports = files.flatMap((file) =>
      billingSpecifiers(readFileSync(file, 'utf8')).map((specifier) => ({ file: path.relative(ROOT, file), specifier })),
    );
    // Not vacuous: the capture host, the widget and the launcher do import the billing service.
    expect([...new Set(imports.map((i) => i.file.split('/')[0]))]).toEqual(expect.arrayContaining(['capture-service', 'widget', 'scripts']));
    const outside = imports.filter((i) => unexported([i.specifier], exportKeys).length > 0);
    expect(outside).toEqual([]);
  });

  it('keeps Node out of the browser bundle: the browser code imports only card-rules (and types)', () => {
    const browserFiles = typeScriptFiles(path.join(ROOT, 'widget/src')).filter((file) => !file.includes(`${path.sep}proxy${path.sep}`));
    const valueImports = browserFiles.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^import\s+(?!type\s)[^;]*?['"](@renew\/billing-service[^'"]*)['"]/gm)].map((match) => match[1]),
    );
    expect([...new Set(valueImports)]).toEqual([`${PACKAGE}/card-rules`]);
  });
});

describe('the capture host and the widget have named surfaces too', () => {
  for (const [folder, allowed] of [['capture-service', []], ['widget', ['./dist/*']]] as const) {
    it(`${folder}: named entries, each an existing file (the built bundle's folder aside)`, () => {
      const manifest = JSON.parse(readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8')) as { exports: Record<string, string> };
      const keys = Object.keys(manifest.exports);
      expect(keys.length).toBeGreaterThan(1);
      expect(keys.filter((key) => key.includes('*') && !(allowed as readonly string[]).includes(key))).toEqual([]);
      for (const [key, target] of Object.entries(manifest.exports)) {
        if (!key.includes('*')) expect(() => readFileSync(path.join(ROOT, folder, target)), `${folder} ${key}`).not.toThrow();
      }
    });
  }
});
