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

/**
 * The layers of billing-service/src, lowest first (README "Architecture"). A file imports only from
 * its own layer or below; a lower layer that must trigger something higher publishes a domain event
 * or takes a port that the wiring implements. Folders not listed are wiring (the top).
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['db', 'money', 'clock', 'http', 'audit', 'catalog', 'geo', 'observability', 'accounts', 'config.ts', 'app-context.ts', 'background/periodic-task.ts', 'background/unrecorded-writes.ts'],
  ['ledger'],
  ['plans', 'billing-settings', 'countries'],
  ['customers'],
  ['addresses', 'notes', 'payment-methods', 'subscriptions', 'email-preferences'],
  ['invoices'],
  ['payments', 'refunds', 'capture-tokens'],
  ['lifecycle'],
  ['bulk'],
  ['webhooks', 'notifications', 'background'],
];
const WIRING = LAYERS.length;

/** The layer of a file (path relative to src/): a listed file first, else its top folder. */
function layerOf(file: string): number {
  const byFile = LAYERS.findIndex((layer) => layer.includes(file));
  if (byFile >= 0) return byFile;
  const byFolder = LAYERS.findIndex((layer) => layer.includes(file.split('/')[0]!));
  return byFolder >= 0 ? byFolder : WIRING;
}

/** Every relative import in a source (type-only ones too), resolved to a path relative to src/. */
function relativeImports(source: string, file: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)).replace(/\.js$/, '.ts'),
  );
}

function uphillImports(srcRoot: string): string[] {
  return typeScriptFiles(srcRoot).flatMap((absolute) => {
    const file = path.relative(srcRoot, absolute).split(path.sep).join('/');
    return relativeImports(readFileSync(absolute, 'utf8'), file)
      .filter((target) => layerOf(target) > layerOf(file) && target.split('/')[0] !== file.split('/')[0])
      .map((target) => `${file} -> ${target}`);
  });
}

/**
 * Imports that still run uphill (issue 25 removes them). The list may only shrink: a new uphill
 * import fails the first test, and a removed one must be struck from here (the second).
 */
const UPHILL_TODAY = new Set([
  'app-context.ts -> notifications/notifier.ts',
  'app-context.ts -> payments/gateway/payment-gateway.ts',
  'app-context.ts -> webhooks/events.ts',
  'app-context.ts -> webhooks/url-safety.ts',
  'invoices/billing-run.ts -> webhooks/events.ts',
  'invoices/billing-run.ts -> webhooks/repository.ts',
  'invoices/billing-run.ts -> notifications/notifier.ts',
  'invoices/repository.ts -> webhooks/repository.ts',
  'billing-settings/effective-settings.ts -> invoices/engine/index.ts',
  'billing-settings/service.ts -> customers/repository.ts',
  'billing-settings/routes.ts -> customers/schemas.ts',
  'bulk/service.ts -> webhooks/events.ts',
  'customers/service.ts -> lifecycle/transitions.ts',
  'customers/service.ts -> webhooks/repository.ts',
  'customers/overview.ts -> lifecycle/dunning.ts',
  'customers/customer-response.ts -> subscriptions/recurring-revenue.ts',
  'customers/repository.ts -> webhooks/repository.ts',
  'customers/repository.ts -> subscriptions/repository.ts',
  'payment-methods/service.ts -> webhooks/events.ts',
  'payment-methods/service.ts -> payments/card-checks.ts',
  'payment-methods/service.ts -> payments/call-gateway.ts',
  'clock/test-clock-service.ts -> lifecycle/billing-clock.ts',
  'payments/service.ts -> webhooks/events.ts',
  'payments/repository.ts -> webhooks/repository.ts',
  'lifecycle/billing-clock.ts -> notifications/email-templates.ts',
  'lifecycle/transitions.ts -> webhooks/events.ts',
  'subscriptions/service.ts -> payments/service.ts',
]);

describe('layers: billing-service folders import only from their own layer or below', () => {
  it('finds an uphill import when there is one (the check can fail)', () => {
    expect(relativeImports("import { x } from '../webhooks/events.js';\nimport type { Y } from './y.js';", 'customers/service.ts')).toEqual([
      'webhooks/events.ts',
      'customers/y.ts',
    ]);
    expect(layerOf('customers/service.ts')).toBeLessThan(layerOf('webhooks/events.ts'));
    expect(layerOf('background/periodic-task.ts')).toBe(0);
    expect(layerOf('app.ts')).toBe(WIRING);
  });

  it('no new uphill import', () => {
    const srcRoot = path.join(ROOT, 'billing-service/src');
    // Not vacuous: the imports were read.
    const scanned = typeScriptFiles(srcRoot).flatMap((file) => relativeImports(readFileSync(file, 'utf8'), path.relative(srcRoot, file)));
    expect(scanned.length).toBeGreaterThan(200);
    const found = uphillImports(srcRoot);
    expect(found.filter((edge) => !UPHILL_TODAY.has(edge))).toEqual([]);
  });

  it('the list of uphill imports still to remove is true (strike what is gone)', () => {
    const found = new Set(uphillImports(path.join(ROOT, 'billing-service/src')));
    expect([...UPHILL_TODAY].filter((edge) => !found.has(edge))).toEqual([]);
  });
});
