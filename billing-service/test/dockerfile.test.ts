import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The image cannot be built on these machines (no Docker daemon), so this checks the Dockerfile against the build it
 * packages: its runtime stage holds every file the compiled start reads, every package it imports is a production
 * dependency (the stage installs with --omit=dev), and .dockerignore keeps no source from the build stage.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const dockerfile = read('Dockerfile');
const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM ') + 1);

/** What the runtime stage's COPY lines put under WORKDIR /app: a folder or file per source (a folder destination keeps the name). */
const copiedPaths = [...runtimeStage.matchAll(/^COPY (?:--from=build )?(.+) (\S+)$/gm)].flatMap(([, sources, dest]) =>
  sources!.split(' ').map((source) => {
    const relative = source.replace(/^\/app\//, '');
    return dest!.endsWith('/') ? `${dest === './' ? '' : dest}${path.basename(relative)}` : dest!;
  }),
);
const copied = (file: string) => copiedPaths.some((target) => file === target || file.startsWith(`${target}/`));

/** The workspaces by package name, to follow `@renew/…` imports through their "renew-compiled" exports. */
const workspaces = new Map<string, { dir: string; manifest: { exports?: Record<string, unknown>; dependencies?: Record<string, string> } }>(
  (JSON.parse(read('package.json')).workspaces as string[]).map((dir) => {
    const manifest = JSON.parse(read(`${dir}/package.json`));
    return [manifest.name as string, { dir, manifest }];
  }),
);

function compiledExport(specifier: string): string {
  const [scope, name, ...rest] = specifier.split('/');
  const workspace = workspaces.get(`${scope}/${name}`);
  if (!workspace) throw new Error(`no workspace for ${specifier}`);
  const subpath = rest.length ? `./${rest.join('/')}` : '.';
  const exports = workspace.manifest.exports ?? {};
  const [key, star] = subpath in exports ? [subpath, ''] : ['./*', subpath.slice(2)];
  const target = (exports[key] as { 'renew-compiled'?: string } | undefined)?.['renew-compiled'];
  if (!target) throw new Error(`${specifier}: no "renew-compiled" export`);
  return path.join(workspace.dir, target.replace('*', star));
}

const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s*"([^"]+)";|^\s*import\s*"([^"]+)";|\bimport\("([^"]+)"\)/gm;
const BESIDE_CODE = /new URL\(([^)]*?),\s*import\.meta\.url\)/g;
/** Loaded only when running from sources (the compiled build reads the bundles `npm run build` wrote). */
const FROM_SOURCES_ONLY = new Set(['esbuild']);

/**
 * What the compiled entry points load, followed import by import (relative, and `@renew/…` through "renew-compiled"),
 * with every file they find relative to a module (`new URL(…, import.meta.url)`; a .ts there is read as its .js
 * when compiled), and the packages they import from node_modules with the file importing each.
 */
function compiledGraph(entries: string[]) {
  const files = new Set<string>();
  const packages: { file: string; name: string }[] = [];
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    if (!file.endsWith('.js') || !existsSync(path.join(root, file))) continue;
    const code = read(file);
    for (const match of code.matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2] ?? match[3])!;
      if (specifier.startsWith('.')) queue.push(path.join(path.dirname(file), specifier));
      else if (specifier.startsWith('@renew/')) queue.push(compiledExport(specifier));
      else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        if (!FROM_SOURCES_ONLY.has(name)) packages.push({ file, name });
      }
    }
    for (const [, args] of code.matchAll(BESIDE_CODE)) {
      for (const [, relative] of args!.matchAll(/["'](\.{1,2}\/[^"']*)["']/g)) {
        const target = path.join(path.dirname(file), relative!.replace(/\.ts$/, '.js')).replace(/\/$/, '');
        if (!files.has(target)) queue.push(target);
      }
    }
  }
  return { files, packages };
}

const ENTRIES = ['dist/start.js', 'dist/migrate.js'];

beforeAll(() => {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: root, stdio: 'ignore' });
});

describe('the Dockerfile', () => {
  it('runs the compiled start as a non-root user in production, with a health check on /readyz', () => {
    expect(runtimeStage).toMatch(/^FROM node:20-bookworm-slim AS runtime$/m);
    expect(runtimeStage).toMatch(/^ENV NODE_ENV=production$/m);
    expect(runtimeStage).toMatch(/^USER node$/m);
    expect(runtimeStage).toMatch(/^RUN npm ci --omit=dev /m);
    expect(runtimeStage).toContain('ENTRYPOINT ["node", "--conditions=renew-compiled", "dist/start.js"]');
    expect(read('deploy/healthcheck.mjs')).toContain('/readyz');
    expect(dockerfile).toMatch(/AS build\n(?:.*\n)*RUN npm ci .*&& npm run build/);
  });

  it('copies every file the compiled start loads or reads beside its code', () => {
    const needed = new Set([...compiledGraph(ENTRIES).files, 'deploy/healthcheck.mjs']);
    // Every workspace's package.json: npm ci links them, and their "exports" lead to the compiled files.
    for (const { dir } of workspaces.values()) needed.add(`${dir}/package.json`);
    // The graph reaches the API, the capture host (its browser bundles), the demo store and the PDF thread.
    for (const file of [
      'billing-service/dist/invoices/pdf/pdf-render-thread.js',
      'capture-service/dist/portal/browser/portal-app.js',
      'demo-site/public',
      'console/dist',
      'widget/dist',
      'billing-service/catalog/demo-catalog.json',
    ]) {
      expect(needed, file).toContain(file);
    }
    const missing = [...needed].filter((file) => !existsSync(path.join(root, file)));
    expect(missing, 'read by the compiled code but not built').toEqual([]);
    expect([...needed].filter((file) => !copied(file)).sort(), 'not copied into the runtime stage').toEqual([]);
  });

  it('installs every package the compiled code imports: a production dependency of the importing workspace', () => {
    const wrong = compiledGraph(ENTRIES)
      .packages.filter(({ file, name }) => {
        const workspace = [...workspaces.values()].find(({ dir }) => file.startsWith(`${dir}/`));
        return !workspace?.manifest.dependencies?.[name];
      })
      .map(({ file, name }) => `${file} imports ${name}`);
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('.dockerignore leaves every tracked file to the build stage but CI scripts', () => {
    const patterns = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const under = (file: string, folder: string) => file === folder || file.startsWith(`${folder}/`);
    // `**/x`: x at any depth; `x`: from the root.
    const ignored = (file: string) =>
      patterns.some((pattern) =>
        pattern.startsWith('**/')
          ? file.split('/').some((_, i, parts) => under(parts.slice(i).join('/'), pattern.slice(3)))
          : under(file, pattern),
      );
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(tracked.length).toBeGreaterThan(500);
    expect(tracked.filter((file) => ignored(file) && !file.startsWith('.ci/'))).toEqual([]);
    // And what the build makes or installs is left out (the build stage makes its own).
    for (const made of ['node_modules/x', 'billing-service/dist/index.js', 'widget/dist-server/x.js', '.data/pg'])
      expect(ignored(made), made).toBe(true);
  });

  it('deploy/compose.yaml runs every role from the image, HAProxy with every address deploy/haproxy/renew.cfg reads', () => {
    const compose = read('deploy/compose.yaml');
    for (const role of ['api', 'capture', 'worker']) expect(compose).toContain(`command: ["${role}"]`);
    expect(compose).toContain('entrypoint: ["node", "--conditions=renew-compiled", "dist/migrate.js"]');
    const addresses = [...read('deploy/haproxy/renew.cfg').matchAll(/"\$\{(RENEW_[A-Z0-9_]+)\}"/g)].map((m) => m[1]!);
    expect(addresses.length).toBeGreaterThan(3);
    expect(addresses.filter((name) => !new RegExp(`^\\s+${name}: \\S`, 'm').test(compose))).toEqual([]);
  });
});
