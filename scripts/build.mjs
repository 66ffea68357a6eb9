// `npm run build`: compiles the server packages to JavaScript and builds every browser asset once, so
// `npm start` runs plain `node` and bundles nothing at runtime. Plain JavaScript: it runs before anything
// is compiled, on a production install too. `--if-changed` (what `npm start` and `npm run migrate` run
// first) builds only when the sources' stamp differs from the last build's: a stat of each source file.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The last build's stamp; its absence means "never built". */
export const STAMP_FILE = path.join(ROOT, 'dist', 'build-stamp.json');

/**
 * Each server package's sources and where their JavaScript goes: a folder at the same depth as src/, so
 * `import.meta.url`-relative paths (catalogue, console and widget assets, the PDF thread) hold in both.
 * `skip` folders are browser code, bundled below instead.
 */
export const SERVER_PACKAGES = [
  { src: 'billing-service/src', out: 'billing-service/dist' },
  { src: 'capture-service/src', out: 'capture-service/dist', skip: ['browser'] },
  { src: 'demo-site/src', out: 'demo-site/dist' },
  // widget/dist is vite's (the browser element), so the proxy's JavaScript has a folder of its own.
  { src: 'widget/src', out: 'widget/dist-server' },
  { src: 'scripts', out: 'dist', only: ['start.ts', 'start-product.ts', 'migrate.ts'] },
];

/** The capture host's browser scripts, bundled next to their compiled importers (card-fields-assets.ts reads them). */
export const BROWSER_ENTRIES = ['capture-service/src/hosted/browser/card-fields-frame.ts', 'capture-service/src/portal/browser/portal-app.ts'];

/** The vite builds: the <renew-checkout> element and the console. */
const VITE_PACKAGES = ['widget', 'console'];

/** What the stamp covers: every file under these folders, and these files. */
const STAMPED_FOLDERS = ['billing-service/src', 'capture-service/src', 'demo-site/src', 'widget/src', 'console/src'];
const STAMPED_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'scripts/build.mjs',
  'scripts/start.ts',
  'scripts/start-product.ts',
  'scripts/migrate.ts',
  ...['billing-service', 'capture-service', 'demo-site', 'widget', 'console'].map((p) => `${p}/package.json`),
  'widget/vite.config.ts',
  'console/vite.config.ts',
  'console/index.html',
];

/** Outputs a later step deletes or an interrupted build leaves out: with one missing, the stamp is stale. */
const KEY_OUTPUTS = ['dist/start.js', 'widget/dist/renew-checkout.js', 'console/dist/index.html', 'capture-service/dist/portal/browser/portal-app.js'];

async function filesUnder(folder, skip = []) {
  const found = [];
  let entries;
  try {
    entries = await readdir(path.join(ROOT, folder), { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!skip.includes(entry.name)) found.push(...(await filesUnder(relative, skip)));
    } else found.push(relative);
  }
  return found;
}

/** A hash of every stamped file's path, size and modification time: a few hundred stats, no reads. */
export async function sourceStamp() {
  const files = [...STAMPED_FILES];
  for (const folder of STAMPED_FOLDERS) files.push(...(await filesUnder(folder)));
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const info = await stat(path.join(ROOT, file)).catch(() => undefined);
    hash.update(`${file}\0${info ? `${info.size}\0${info.mtimeMs}` : 'absent'}\n`);
  }
  return hash.digest('hex');
}

/** Whether the last build is of these sources and its outputs are all there. */
export async function isUpToDate(stamp) {
  const recorded = await readFile(STAMP_FILE, 'utf8').then(JSON.parse, () => undefined);
  if (recorded?.stamp !== stamp) return false;
  const outputs = await Promise.all(KEY_OUTPUTS.map((file) => stat(path.join(ROOT, file)).then(() => true, () => false)));
  return outputs.every(Boolean);
}

function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} in ${cwd} failed (exit ${code})`))));
  });
}

async function compileServer(esbuild) {
  for (const pkg of SERVER_PACKAGES) {
    const files = (await filesUnder(pkg.src, pkg.skip)).filter((file) => !pkg.only || pkg.only.includes(path.basename(file)));
    const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
    if (!pkg.only) await rm(path.join(ROOT, pkg.out), { recursive: true, force: true });
    // One file in, one file out (no bundling): imports stay as written (`./x.js`, `@renew/…`).
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: sources,
      outdir: pkg.out,
      outbase: pkg.src,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    // Files read beside the code (the card frame's stylesheet).
    for (const file of files.filter((f) => !f.endsWith('.ts') && !f.endsWith('.md') && !f.endsWith('tsconfig.json'))) {
      const target = path.join(ROOT, pkg.out, path.relative(pkg.src, file));
      await mkdir(path.dirname(target), { recursive: true });
      await copyFile(path.join(ROOT, file), target);
    }
  }
}

async function bundleBrowserScripts() {
  // The same bundling the host does from sources in development (card-fields-assets.ts), from its compiled copy.
  const assets = await import(pathToFileURL(path.join(ROOT, 'capture-service/dist/hosted/card-fields-assets.js')).href);
  for (const entry of BROWSER_ENTRIES) {
    const target = path.join(ROOT, entry.replace('/src/', '/dist/').replace(/\.ts$/, '.js'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, await assets.bundleBrowserScript(path.join(ROOT, entry)));
  }
}

export async function build() {
  const stamp = await sourceStamp();
  const started = performance.now();
  const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
  // The two vite builds run side by side while esbuild compiles the server.
  const viteBuilds = Promise.all(VITE_PACKAGES.map((pkg) => run(process.execPath, [vite, 'build', '--logLevel', 'warn'], path.join(ROOT, pkg))));
  const esbuild = await import('esbuild');
  await compileServer(esbuild);
  await bundleBrowserScripts();
  await viteBuilds;
  await mkdir(path.dirname(STAMP_FILE), { recursive: true });
  await writeFile(STAMP_FILE, `${JSON.stringify({ stamp, builtAt: new Date().toISOString() })}\n`);
  return performance.now() - started;
}

const LOCK_DIR = path.join(ROOT, 'dist', '.build-lock');

/**
 * One build at a time in a checkout (two roles started at once on a fresh clone): a folder made atomically, holding
 * the builder's pid; a lock whose process is gone is taken over. Resolves to the release.
 */
async function lock() {
  await mkdir(path.dirname(LOCK_DIR), { recursive: true });
  for (;;) {
    try {
      await mkdir(LOCK_DIR);
      await writeFile(path.join(LOCK_DIR, 'pid'), String(process.pid));
      return () => rm(LOCK_DIR, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(path.join(LOCK_DIR, 'pid'), 'utf8').catch(() => ''));
    let alive = true;
    try {
      if (holder) process.kill(holder, 0);
    } catch {
      alive = false;
    }
    if (!alive) await rm(LOCK_DIR, { recursive: true, force: true });
    else await sleep(200);
  }
}

async function main() {
  const ifChanged = process.argv.includes('--if-changed');
  const started = performance.now();
  // The common case, a start on an unchanged checkout, takes no lock.
  if (ifChanged && (await isUpToDate(await sourceStamp()))) {
    console.log(`build: up to date (checked in ${Math.round(performance.now() - started)} ms)`);
    return;
  }
  const release = await lock();
  try {
    // Another process may have built while this one waited.
    if (ifChanged && (await isUpToDate(await sourceStamp()))) {
      console.log('build: up to date (built by another process meanwhile)');
      return;
    }
    if (ifChanged) console.log('build: the sources changed since the last build (or there was none); building…');
    const took = await build();
    console.log(`build: done in ${(took / 1000).toFixed(1)} s`);
  } finally {
    await release();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
