/**
 * Restart time (issue 39): from spawning a process to its first 200 on /readyz, for a second start of the compiled
 * `api` role on an existing database (what a restarted instance costs), beside a bare `node` process that starts a
 * bare Fastify and answers once, measured the same way in the same run. Also the build check every `npm start` runs
 * first (scripts/build.mjs --if-changed on an unchanged checkout). Median of a few starts each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const STARTS = 3;

export interface StartFigures {
  /** Milliseconds from spawn to the first 200 of /readyz (median); the first start (fresh database) apart. */
  apiSecondStart: number;
  apiFirstStart: number;
  /** A bare node + Fastify from spawn to its first answer (median). */
  bare: number;
  /** `node scripts/build.mjs --if-changed` with nothing to build, whole process (median). */
  buildCheck: number;
}

const BARE_SERVER = `
const app = require('fastify')();
app.get('/readyz', async () => ({ status: 'ready' }));
app.listen({ host: '127.0.0.1', port: 0 }).then((url) => console.log('listening on ' + url));
`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Spawns a process, reads its address from its output, polls /readyz until 200; resolves to the milliseconds it took, then stops it. */
async function timeToReady(args: string[], env: NodeJS.ProcessEnv, address: RegExp, cwd = ROOT): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`))));
  try {
    const url = await Promise.race([
      exited,
      new Promise<string>((resolve) => {
        const look = () => {
          const found = address.exec(output);
          if (found?.[1]) resolve(found[1]);
          else setTimeout(look, 5);
        };
        look();
      }),
    ]);
    for (;;) {
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10))]);
    }
  } finally {
    exited.catch(() => undefined);
    if (child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  }
}

function run(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')} exited with ${code}`)),
    ),
  );
}

/** On PostgreSQL (`databaseUrl`, an existing empty database) or, without one, an embedded database in a fresh folder. */
export async function benchStartTime(databaseUrl?: string): Promise<StartFigures> {
  // The build `npm start` would make; then its check, which is all a start on an unchanged checkout does first.
  await run(['scripts/build.mjs', '--if-changed']);
  const buildCheck = median(await sequence(STARTS, () => run(['scripts/build.mjs', '--if-changed'])));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-bench-start-'));
  try {
    const env = {
      ...process.env,
      NODE_ENV: 'development',
      RENEW_API_PORT: '0',
      RENEW_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      RENEW_LOG_LEVEL: 'warn',
      RENEW_API_KEY: 'sk_bench_start_0123456789abcdef0123',
      RENEW_PUBLIC_API_KEY: 'pk_bench_start_0123456789abcdef0123',
    };
    const api = ['--conditions=renew-compiled', 'dist/start.js', 'api'];
    const listening = /billing API listening on (http\S+)/;
    const apiFirstStart = await timeToReady(api, env, listening);
    const apiSecondStart = median(await sequence(STARTS, () => timeToReady(api, env, listening)));
    // Fastify from billing-service's dependencies, as the API loads it.
    const bare = median(
      await sequence(STARTS, () =>
        timeToReady(['-e', BARE_SERVER], process.env, /listening on (http\S+)/, path.join(ROOT, 'billing-service')),
      ),
    );
    return { apiSecondStart, apiFirstStart, bare, buildCheck };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function sequence(times: number, measure: () => Promise<number>): Promise<number[]> {
  const values: number[] = [];
  for (let i = 0; i < times; i++) values.push(await measure());
  return values;
}

/** The lines the report prints for one database. */
export function startTimeLines(database: string, figures: StartFigures | string): string[] {
  if (typeof figures === 'string') return [`  ${database}: ${figures}`];
  const ms = (value: number) => `${Math.round(value)} ms`;
  return [
    `  ${database}: api role, second start to /readyz ${ms(figures.apiSecondStart)} (target 3 s; first start on the fresh database ${ms(figures.apiFirstStart)}); ` +
      `baseline, bare node + Fastify to its first answer ${ms(figures.bare)}; npm start's build check ${ms(figures.buildCheck)} before that`,
  ];
}
