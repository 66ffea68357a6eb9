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
  afterAll(() => {
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

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

/** An export's target: a path, or conditions whose `default` is the source and `renew-compiled` its build (README "Build"). */
type ExportTarget = string | { 'renew-compiled'?: string; default: string };

/** The source file an export names; its compiled twin, when given, must mirror it (src/x.ts → dist/x.js). */
function sourceOf(target: ExportTarget): string {
  if (typeof target === 'string') return target;
  if (target['renew-compiled'] !== undefined)
    expect(target['renew-compiled']).toBe(
      target.default
        .replace(/^\.\/src\//, target['renew-compiled'].startsWith('./dist-server/') ? './dist-server/' : './dist/')
        .replace(/\.ts$/, '.js'),
    );
  return target.default;
}

describe("the billing service's named surface", () => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'billing-service/package.json'), 'utf8')) as {
    exports: Record<string, ExportTarget>;
  };
  const exportKeys = Object.keys(manifest.exports);

  it('is a list of named entries, without a wildcard', () => {
    expect(exportKeys.length).toBeGreaterThan(0);
    expect(exportKeys.filter((key) => key.includes('*'))).toEqual([]);
    // Each entry is a file that exists (a typo here would break every importer).
    for (const target of Object.values(manifest.exports))
      expect(() => readFileSync(path.join(ROOT, 'billing-service', sourceOf(target)))).not.toThrow();
  });

  it('recognises an import of an internal path (the check can fail)', () => {
    const source =
      "import { findCustomerRow } from '@renew/billing-service/customers/repository.js';\nimport { ApiError } from '@renew/billing-service/http';\n";
    expect(unexported(billingSpecifiers(source), exportKeys)).toEqual(['@renew/billing-service/customers/repository.js']);
  });

  it('is all that capture-service, widget, demo-site, scripts and e2e import', () => {
    const files = ['capture-service', 'widget', 'demo-site', 'scripts', 'e2e'].flatMap((folder) =>
      typeScriptFiles(path.join(ROOT, folder)),
    );
    const imports = files.flatMap((file) =>
      billingSpecifiers(readFileSync(file, 'utf8')).map((specifier) => ({ file: path.relative(ROOT, file), specifier })),
    );
    // Not vacuous: the capture host, the widget and the launcher do import the billing service.
    expect([...new Set(imports.map((i) => i.file.split('/')[0]))]).toEqual(
      expect.arrayContaining(['capture-service', 'widget', 'scripts']),
    );
    const outside = imports.filter((i) => unexported([i.specifier], exportKeys).length > 0);
    expect(outside).toEqual([]);
  });

  it('keeps Node out of the browser bundle: the browser code imports only card-rules (and types)', () => {
    const browserFiles = typeScriptFiles(path.join(ROOT, 'widget/src')).filter((file) => !file.includes(`${path.sep}proxy${path.sep}`));
    const valueImports = browserFiles.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^import\s+(?!type\s)[^;]*?['"](@renew\/billing-service[^'"]*)['"]/gm)].map(
        (match) => match[1],
      ),
    );
    expect([...new Set(valueImports)]).toEqual([`${PACKAGE}/card-rules`]);
  });
});

describe('the capture host and the widget have named surfaces too', () => {
  for (const [folder, allowed] of [
    ['capture-service', []],
    ['widget', ['./dist/*']],
  ] as const) {
    it(`${folder}: named entries, each an existing file (the built bundle's folder aside)`, () => {
      const manifest = JSON.parse(readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8')) as {
        exports: Record<string, ExportTarget>;
      };
      const keys = Object.keys(manifest.exports);
      expect(keys.length).toBeGreaterThan(1);
      expect(keys.filter((key) => key.includes('*') && !(allowed as readonly string[]).includes(key))).toEqual([]);
      for (const [key, target] of Object.entries(manifest.exports)) {
        if (!key.includes('*')) expect(() => readFileSync(path.join(ROOT, folder, sourceOf(target))), `${folder} ${key}`).not.toThrow();
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
  [
    'db',
    'money',
    'clock',
    'http',
    'audit',
    'catalog',
    'geo',
    'observability',
    'accounts',
    'gateway',
    'outbox',
    'config.ts',
    'app-context.ts',
    'refusals',
    'uri-builder.ts',
    'tasks',
    'pricing',
  ],
  ['ledger'],
  ['plans', 'billing-settings', 'countries', 'addresses'],
  ['customers'],
  ['notes', 'payment-methods', 'subscriptions', 'email-preferences', 'purchases', 'usage'],
  ['invoices'],
  ['payments', 'refunds', 'capture-tokens', 'card-authentications'],
  ['lifecycle', 'disputes', 'invoice-closures', 'credit-notes'],
  ['bulk', 'test-clocks', 'portal'],
  ['webhooks', 'notifications', 'background'],
  // The merchant console (issue 29): wiring that may read any domain, below app.ts.
  ['console'],
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

describe('layers: billing-service folders import only from their own layer or below', () => {
  it('finds an uphill import when there is one (the check can fail)', () => {
    expect(relativeImports("import { x } from '../webhooks/events.js';\nimport type { Y } from './y.js';", 'customers/service.ts')).toEqual(
      ['webhooks/events.ts', 'customers/y.ts'],
    );
    expect(layerOf('customers/service.ts')).toBeLessThan(layerOf('webhooks/events.ts'));
    expect(layerOf('tasks/periodic-task.ts')).toBe(0);
    expect(layerOf('background/background-tasks.ts')).toBe(layerOf('webhooks/emitter.ts'));
    expect(layerOf('app.ts')).toBe(WIRING);
  });

  it('no import runs uphill: every folder imports only from its own layer or below', () => {
    const srcRoot = path.join(ROOT, 'billing-service/src');
    // Not vacuous: the imports were read.
    const scanned = typeScriptFiles(srcRoot).flatMap((file) => relativeImports(readFileSync(file, 'utf8'), path.relative(srcRoot, file)));
    expect(scanned.length).toBeGreaterThan(200);
    expect(uphillImports(srcRoot)).toEqual([]);
  });

  it('every folder of src/ has a layer (a new folder must be placed in the table)', () => {
    const srcRoot = path.join(ROOT, 'billing-service/src');
    const folders = readdirSync(srcRoot, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const placed = new Set(LAYERS.flat().map((entry) => entry.split('/')[0]));
    expect(folders.filter((folder) => !placed.has(folder))).toEqual([]);
  });
});

/**
 * One writer per table (README "Architecture"): only the owning folder inserts, updates or deletes
 * a table. A combined statement of another folder uses the owner's exported piece (`auditInsert`,
 * `ledgerEntryInsert`, `takeInvoiceNumber`, …), so the table's name is written in its owner only.
 */
const TABLE_OWNERS: Readonly<Record<string, string>> = {
  accounts: 'accounts',
  accountClocks: 'clock',
  serviceInstances: 'db',
  idempotencyKeys: 'http',
  rateLimitCounters: 'http',
  auditLog: 'audit',
  sandboxGatewayOperations: 'gateway',
  sandboxAuthentications: 'gateway',
  sandboxDisputes: 'gateway',
  cardAuthentications: 'card-authentications',
  webhookEndpoints: 'outbox',
  webhookEvents: 'outbox',
  webhookDeliveries: 'outbox',
  webhookDeliveryAttempts: 'outbox',
  ledgerEntries: 'ledger',
  ledgerAllocations: 'ledger',
  plans: 'plans',
  planFrequencies: 'plans',
  customerBillingSettings: 'billing-settings',
  customerBillingPeriodConfigurations: 'billing-settings',
  addresses: 'addresses',
  customerAddressPreferences: 'addresses',
  customers: 'customers',
  customerReferences: 'customers',
  customerSalesTrackingCodes: 'customers',
  customerAcquisitions: 'customers',
  customerNotes: 'notes',
  customerEmailPreferences: 'email-preferences',
  paymentMethods: 'payment-methods',
  subscriptions: 'subscriptions',
  subscriptionProducts: 'subscriptions',
  subscriptionCoupons: 'subscriptions',
  pendingPlanChanges: 'subscriptions',
  invoices: 'invoices',
  invoiceCharges: 'invoices',
  invoiceTaxes: 'invoices',
  purchases: 'purchases',
  creditNotes: 'credit-notes',
  usageEvents: 'usage',
  usageEventIds: 'usage',
  usageDaily: 'usage',
  usageUniqueValues: 'usage',
  usageThresholds: 'usage',
  usageThresholdsReached: 'usage',
  creditNoteLines: 'credit-notes',
  creditNoteRefunds: 'credit-notes',
  payments: 'payments',
  paymentsNeedingAttention: 'payments',
  allocationReservations: 'payments',
  refunds: 'refunds',
  refundUnallocations: 'refunds',
  disputes: 'disputes',
  disputeUnallocations: 'disputes',
  captureTokens: 'capture-tokens',
  autoCollectionAttempts: 'lifecycle',
  bulkJobs: 'bulk',
  bulkJobRecords: 'bulk',
  emailOutbox: 'notifications',
  portalLinks: 'portal',
  portalSessions: 'portal',
  portalCardAttempts: 'portal',
  portalEmailChanges: 'portal',
  portalCancellations: 'lifecycle',
  operators: 'console',
  operatorSessions: 'console',
  operatorInvitations: 'console',
  operatorSignInFailures: 'console',
};

const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Each write in a source: the table (camelCase) of every Kysely insertInto/updateTable/deleteFrom, insertJsonRows, and raw INSERT/UPDATE/DELETE. */
function tableWrites(source: string): string[] {
  const patterns = [
    /\b(?:insertInto|updateTable|deleteFrom)\(\s*'([A-Za-z_]+)/g,
    /\binsertJsonRows\(\s*\w+\s*,\s*'([a-z_]+)'/g,
    /\b(?:insert\s+into|delete\s+from)\s+([a-z_]+)\b/gi,
    /\bupdate\s+([a-z_]+)\s+(?:as\s+\w+\s+|\w+\s+)?set\b/gi,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => camelCase(match[1]!)));
}

function writesOutsideOwners(srcRoot: string): string[] {
  return typeScriptFiles(srcRoot)
    .map((absolute) => path.relative(srcRoot, absolute).split(path.sep).join('/'))
    .filter((file) => !file.startsWith('db/migrations/'))
    .flatMap((file) =>
      tableWrites(readFileSync(path.join(srcRoot, file), 'utf8'))
        .filter((table) => TABLE_OWNERS[table] !== file.split('/')[0])
        .map((table) => `${table} <- ${file}`),
    );
}

describe('one writer per table', () => {
  it('finds a write of another folder’s table when there is one (the check can fail)', () => {
    const source =
      "qc.insertInto('auditLog').values(x); await insertJsonRows(db, 'ledger_entries', C, rows);\nsql`update payment_methods set is_default = false`; sql`delete from refunds where id = 1`";
    expect(tableWrites(source).sort()).toEqual(['auditLog', 'ledgerEntries', 'paymentMethods', 'refunds']);
  });

  it('every table the code writes has an owner, and only its owner writes it', () => {
    const srcRoot = path.join(ROOT, 'billing-service/src');
    const written = typeScriptFiles(srcRoot)
      .filter((file) => !file.includes(`${path.sep}migrations${path.sep}`))
      .flatMap((file) => tableWrites(readFileSync(file, 'utf8')));
    // Not vacuous: most tables are written somewhere.
    expect(new Set(written).size).toBeGreaterThan(30);
    expect([...new Set(written)].filter((table) => !(table in TABLE_OWNERS))).toEqual([]);
    expect(writesOutsideOwners(srcRoot)).toEqual([]);
  });

  it('every owner folder of the table is a folder of src/', () => {
    const folders = new Set(
      readdirSync(path.join(ROOT, 'billing-service/src'), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name),
    );
    expect([...new Set(Object.values(TABLE_OWNERS))].filter((owner) => !folders.has(owner))).toEqual([]);
  });
});

/** The workspace packages (root package.json `workspaces`) and the @renew/* packages each one names in its package.json. */
type PackageManifest = {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const WORKSPACES = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
const manifestOf = (folder: string) => JSON.parse(readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8')) as PackageManifest;
const ownPackages = (deps: Record<string, string> | undefined) => Object.keys(deps ?? {}).filter((name) => name.startsWith('@renew/'));

/** What a package needs to run: its dependencies, peer and optional dependencies. */
function runtimeGraph(): Map<string, string[]> {
  return new Map(
    WORKSPACES.map(manifestOf).map((m) => [
      m.name,
      [...ownPackages(m.dependencies), ...ownPackages(m.peerDependencies), ...ownPackages(m.optionalDependencies)],
    ]),
  );
}

/** Also what its tests, bench and tools need (devDependencies). */
function fullGraph(): Map<string, string[]> {
  return new Map(WORKSPACES.map(manifestOf).map((m) => [m.name, [...runtimeGraph().get(m.name)!, ...ownPackages(m.devDependencies)]]));
}

/** A cycle of the graph as `a -> b -> a`, or null when it has none (depth-first, the path on the stack). */
function cycleIn(graph: Map<string, string[]>): string | null {
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (node: string): string | null => {
    const at = onPath.indexOf(node);
    if (at >= 0) return [...onPath.slice(at), node].join(' -> ');
    if (done.has(node)) return null;
    onPath.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    onPath.pop();
    done.add(node);
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * devDependency edges that close a cycle, each with its reason; none of them is imported by the package's
 * own src/. Strike one once it is gone.
 */
const DEV_CYCLE_EXCEPTIONS = new Map([
  [
    '@renew/billing-service -> @renew/capture-service',
    'bench/ (npm run bench) starts the capture host next to the billing API to measure a capture; the bench is not in src/',
  ],
]);

describe('workspace packages depend on each other in one direction', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['@renew/a', ['@renew/b']],
      ['@renew/b', ['@renew/c']],
      ['@renew/c', ['@renew/a']],
      ['@renew/d', ['@renew/a']],
    ]);
    expect(cycleIn(graph)).toBe('@renew/a -> @renew/b -> @renew/c -> @renew/a');
    graph.set('@renew/c', []);
    expect(cycleIn(graph)).toBeNull();
  });

  it('what the packages need to run has no cycle', () => {
    const graph = runtimeGraph();
    // Not vacuous: every workspace is read, and several depend on another.
    expect(graph.size).toBe(WORKSPACES.length);
    expect([...graph.values()].flat().length).toBeGreaterThan(3);
    expect(cycleIn(graph)).toBeNull();
  });

  it('with their devDependencies, no cycle either but the listed exceptions', () => {
    const graph = fullGraph();
    for (const edge of DEV_CYCLE_EXCEPTIONS.keys()) {
      const [from, to] = edge.split(' -> ') as [string, string];
      // Still true: the exception is a devDependency that exists.
      expect(ownPackages(manifestOf(WORKSPACES.find((w) => manifestOf(w).name === from)!).devDependencies), edge).toContain(to);
      graph.set(
        from,
        graph.get(from)!.filter((target) => target !== to),
      );
    }
    expect(cycleIn(graph)).toBeNull();
  });

  it('every @renew/* package a workspace imports is one its package.json names (so the graph above is the real one)', () => {
    const undeclared = WORKSPACES.flatMap((folder) => {
      const manifest = manifestOf(folder);
      const declared = new Set([...fullGraph().get(manifest.name)!, manifest.name]);
      return typeScriptFiles(path.join(ROOT, folder)).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s*\(?\s*)['"](@renew\/[a-z-]+)/g)]
          .map((match) => match[1]!)
          .filter((name) => !declared.has(name))
          .map((name) => `${path.relative(ROOT, file)} imports ${name}`),
      );
    });
    expect(undeclared).toEqual([]);
  });
});
