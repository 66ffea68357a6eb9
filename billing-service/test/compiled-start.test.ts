import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_MIGRATIONS } from '../src/db/migrate.js';
import { adminQuery } from './helpers/database-template.js';

/**
 * The compiled build as operators run it: `npm start -- <role>` and `npm run migrate` run the root package.json's
 * scripts, which build only when the sources changed (scripts/build.mjs) and then run dist/ with plain node.
 * One build for the file (none under `npm test`, which builds first); every start after it finds the stamp current.
 */
const repositoryDir = fileURLToPath(new URL('../..', import.meta.url));
const scripts = JSON.parse(readFileSync(path.join(repositoryDir, 'package.json'), 'utf8')).scripts as Record<string, string>;
const STAMP_FILE = path.join(repositoryDir, 'dist/build-stamp.json');
const serverUrl = process.env.RENEW_TEST_POSTGRES_URL;
const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-compiled-start-'));
let databaseUrl = '';

/** The database the processes share: a new one on the test server, or an embedded one in a fresh folder. */
beforeAll(async () => {
  await run(`${scripts.build} --if-changed`);
  if (serverUrl) {
    const name = `renew_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(serverUrl, `create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (serverUrl && databaseUrl)
    await adminQuery(serverUrl, `drop database if exists ${new URL(databaseUrl).pathname.slice(1)} with (force)`);
});

function launch(command: string): { child: ChildProcess; output: () => string } {
  // What npm runs for `npm run <script> -- <args>`: the script in a shell, the arguments appended.
  const child = spawn('sh', ['-c', command], {
    cwd: repositoryDir,
    detached: true,
    env: {
      ...process.env,
      RENEW_API_PORT: '0',
      RENEW_CAPTURE_PORT: '0',
      RENEW_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      RENEW_LOG_LEVEL: 'warn',
      RENEW_CAPTCHA: 'dev',
      RENEW_API_KEY: 'sk_compiled_test_0123456789abcdef0123',
      RENEW_PUBLIC_API_KEY: 'pk_compiled_test_0123456789abcdef0123',
    },
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return { child, output: () => output };
}

function run(command: string): Promise<string> {
  const { child, output } = launch(command);
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => (code === 0 ? resolve(output()) : reject(new Error(`${command} exited with ${code}:\n${output()}`))));
  });
}

/** Starts a role as `npm start -- <role>` does and waits for its banner's address. */
async function startRole(role: string, banner: RegExp) {
  const started = launch(`${scripts.start} ${role}`);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 100 s:\n${started.output()}`)), 100_000);
    started.child.stdout?.on('data', () => {
      const found = banner.exec(started.output());
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    started.child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${started.output()}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      started.child.on('exit', () => resolve());
      // The shell and the node process it started: the group.
      process.kill(-started.child.pid!, 'SIGTERM');
    });
  return { url, output: started.output, stop };
}

async function appliedMigrations(): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe('the compiled build', () => {
  it('npm run migrate applies every migration once, from two processes at once on PostgreSQL', async () => {
    // The embedded database is one process's: there the second run follows the first and finds nothing to do.
    const runs = serverUrl
      ? await Promise.all([run(scripts.migrate!), run(scripts.migrate!)])
      : [await run(scripts.migrate!), await run(scripts.migrate!)];
    for (const output of runs) {
      expect(output).toContain('build: up to date');
      expect(output).toMatch(/migrate: the (PostgreSQL|embedded) database is up to date/);
    }
    if (serverUrl) expect(await appliedMigrations()).toEqual([...KNOWN_MIGRATIONS]);
  });

  it('a second start of the api role does not rebuild and answers /readyz', async () => {
    const builtAt = readFileSync(STAMP_FILE, 'utf8');
    for (const attempt of [1, 2]) {
      const api = await startRole('api', /billing API listening on (http\S+)/);
      try {
        expect(api.output(), `start ${attempt}`).toMatch(/build: up to date \(checked in \d+ ms\)/);
        expect(api.output()).not.toContain('building');
        const ready = await fetch(`${api.url}/readyz`);
        expect(ready.status).toBe(200);
        expect((await ready.json()).checks).toMatchObject({ database: 'ok', migrations: 'ok' });
      } finally {
        await api.stop();
      }
    }
    expect(readFileSync(STAMP_FILE, 'utf8')).toBe(builtAt);
  });

  it('the capture role serves the browser scripts npm run build bundled (esbuild is a development dependency)', async () => {
    const capture = await startRole('capture', /Card-capture host listening on (http\S+?) /);
    try {
      expect(capture.output()).toContain('build: up to date');
      for (const [route, file] of [
        ['/hosted/card-fields.js', 'capture-service/dist/hosted/browser/card-fields-frame.js'],
        ['/portal/assets/portal.js', 'capture-service/dist/portal/browser/portal-app.js'],
      ] as const) {
        const response = await fetch(`${capture.url}${route}`);
        expect(response.status, route).toBe(200);
        expect(await response.text()).toBe(readFileSync(path.join(repositoryDir, file), 'utf8'));
      }
    } finally {
      await capture.stop();
    }
  });
});
