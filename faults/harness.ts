/**
 * The fault test's harness: a throwaway PostgreSQL cluster it may restart, the product's processes
 * (`npm start -- <role>`), the outside peers (a webhook receiver, an SMTP catcher) and the client a
 * careful integrator writes (keyed writes retried with the same key). Used by fault-test.ts and its phases.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, chmodSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RECOVERY_LIMIT_MS = 30_000;
export const LOAD_WORKERS = 6;
export const BULK_RECORDS = 600;
export const API_KEY = `sk_fault_${randomUUID().replace(/-/g, '')}`;
export const PUBLIC_KEY = `pk_fault_${randomUUID().replace(/-/g, '')}`;
export const AUTH = { authorization: `Basic ${API_KEY}`, 'content-type': 'application/json' };

export const failures: string[] = [];
export const figures: Array<[string, string | number]> = [];
export function check(ok: boolean, what: string) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const elapsed = (since: number) => Math.round(performance.now() - since);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// ---------- PostgreSQL: a throwaway cluster this test may restart ----------

export class Cluster {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'renew-faults-pg-'));
  readonly bin = readdirSync('/usr/lib/postgresql')
    .map((v) => `/usr/lib/postgresql/${v}/bin`)
    .filter((b) => existsSync(`${b}/pg_ctl`))
    .sort()
    .pop();
  constructor(readonly port: number) {
    if (!this.bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)');
  }
  private run(command: string) {
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chmodSync(this.dir, 0o777);
    const result = asRoot
      ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { encoding: 'utf8' })
      : spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command}: ${result.stderr || result.stdout}`);
  }
  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}/renew`;
  }
  async init() {
    this.run(`${this.bin}/initdb -D ${this.dir}/data -A trust -U postgres >/dev/null`);
    this.start();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${this.port}/postgres` });
    await admin.connect();
    await admin.query('create database renew');
    await admin.end();
  }
  start() {
    this.run(
      `${this.bin}/pg_ctl -D ${this.dir}/data -l ${this.dir}/log -w -o "-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null`,
    );
  }
  stop(mode: 'fast' | 'immediate') {
    this.run(`${this.bin}/pg_ctl -D ${this.dir}/data -m ${mode} -w stop >/dev/null`);
  }
  destroy() {
    try {
      this.stop('immediate');
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// ---------- the product's processes ----------

export interface Instance {
  name: string;
  role: 'api' | 'capture' | 'worker';
  port: number;
  child: ChildProcess;
  exited?: string;
  killed?: boolean;
}

export const logDir = mkdtempSync(path.join(tmpdir(), 'renew-faults-logs-'));
export const instances: Instance[] = [];

export function startInstance(name: string, role: Instance['role'], port: number, env: NodeJS.ProcessEnv): Instance {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', role], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      RENEW_API_PORT: role === 'capture' ? '0' : String(port),
      RENEW_CAPTURE_PORT: role === 'capture' ? String(port) : '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(path.join(logDir, `${name}.log`));
  // Two sources into one file: the first to end must not end it under the other (a write after end throws).
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const instance: Instance = { name, role, port, child };
  child.on('exit', (code, signal) => (instance.exited = `code ${code} signal ${signal}`));
  instances.push(instance);
  return instance;
}

export function logTail(instance: Instance): string {
  const text = readFileSync(path.join(logDir, `${instance.name}.log`), 'utf8');
  return text.split('\n').slice(-15).join('\n');
}

export async function waitReady(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200) return true;
    } catch {
      // not up yet
    }
    await sleep(200);
  }
  return false;
}

// ---------- outside peers: webhook receiver, SMTP catcher ----------

/** Slow peers on demand: a webhook answer or an e-mail's acceptance held this long, so that sends are in flight when a worker is paused. */
export const peerDelays = { webhookMs: 0, smtpMs: 0 };

export const webhookIds = new Map<string, number>();
export const webhookCustomers = new Set<number>();
export async function startWebhookReceiver(): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      webhookIds.set(id, (webhookIds.get(id) ?? 0) + 1);
      try {
        const event = JSON.parse(body) as { type: string; data: { id?: number } };
        if (event.type === 'customer.created' && typeof event.data.id === 'number') webhookCustomers.add(event.data.id);
      } catch {
        // counted by id anyway
      }
      setTimeout(() => response.end('ok'), peerDelays.webhookMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

export const emailsReceived: string[] = [];
export async function startSmtpCatcher(): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        emailsReceived.push(/^Message-ID: (.*)$/im.exec(raw)?.[1]?.trim() ?? randomUUID());
        setTimeout(() => callback(), peerDelays.smtpMs);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.server.address() as { port: number }).port };
}

// ---------- the client: what a careful integrator does ----------

export interface Answer {
  status: number;
  body: any;
}

/** One request; a network failure is status 0. */
export async function send(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method,
      headers: { ...AUTH, ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(45_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body: parsed };
  } catch {
    return { status: 0, body: null };
  }
}

export const retryable = (status: number) => status === 0 || status === 502 || status === 503 || status === 504 || status === 409;
export const stats = { requests: 0, ok: 0, retries: 0, unavailable: 0, serverErrors: 0, statuses: new Map<number, number>() };
export function count(answer: Answer) {
  stats.requests += 1;
  stats.statuses.set(answer.status, (stats.statuses.get(answer.status) ?? 0) + 1);
  if (answer.status === 200) stats.ok += 1;
  if (answer.status === 503) stats.unavailable += 1;
  if (answer.status === 500) stats.serverErrors += 1;
}

/** A keyed write, retried with the same key until it gets an answer that is not "unavailable" (at most 90 s). */
export async function keyed(url: string, body: unknown, key: string, giveUpMs = 90_000): Promise<Answer> {
  const deadline = performance.now() + giveUpMs;
  for (;;) {
    const answer = await send(url, 'POST', body, { 'idempotency-key': key });
    count(answer);
    if (!retryable(answer.status) || performance.now() > deadline) return answer;
    stats.retries += 1;
    await sleep(300);
  }
}

/** The capture host's form for the test card with a first payment of 5.00 (a fresh CAPTCHA token each time it is built). */
export function captureForm(customerId: number, captureToken: string, riskToken: string, clientIp: string): URLSearchParams {
  return new URLSearchParams({
    publicApiKey: PUBLIC_KEY,
    customerId: String(customerId),
    cardNumber: '4242424242424242',
    firstName: 'Ada',
    lastName: 'Lovelace',
    expirationMonth: '12',
    expirationYear: '30',
    cvv: '123',
    recaptcha: `tok-${randomUUID()}`,
    captureToken,
    'paymentCollectOptions.collectionAmount': '5.00',
    riskToken,
    clientIp,
    email: 'ada@example.com',
  });
}
