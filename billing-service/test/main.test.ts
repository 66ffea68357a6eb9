import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repositoryDir = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-main-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
// `npm start` builds when the sources changed (a no-op under `npm test`, which builds first), then runs the compiled product.
beforeAll(() => {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: repositoryDir, stdio: 'ignore' });
});

const START_WAIT_MS = 100_000;
// Two starts in one test at most, each up to START_WAIT_MS: beyond the shared test timeout.
const TEST_TIMEOUT_MS = 2 * START_WAIT_MS + 60_000;

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  url: string;
}

/** The demo store's address from the banner, and what its checkout proxy answers for the plans. */
async function demoStorePlans(output: string): Promise<{ page: string; plans: number }> {
  const store = /Demo store with <renew-checkout> on (http\S+)/.exec(output)?.[1];
  if (!store) throw new Error(`no demo store in:\n${output}`);
  const page = await (await fetch(store)).text();
  return { page, plans: (await fetch(`${store}/checkout/plans`)).status };
}

/** Starts the product as `npm start` does after its build check (the compiled dist/start.js) and waits for its banner. */
async function startService(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--conditions=renew-compiled', 'dist/start.js'], {
    cwd: repositoryDir,
    env: {
      ...process.env,
      RENEW_API_PORT: '0',
      RENEW_CAPTURE_PORT: '0',
      RENEW_DEMO_PORT: '0',
      RENEW_DATA_DIR: dataDir,
      RENEW_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      RENEW_CAPTCHA: 'dev',
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const url = await new Promise<string>((resolve, reject) => {
    // A first start builds its database and runs every migration: on a busy CI machine that has taken over 30 s.
    const timer = setTimeout(() => reject(new Error(`no start within ${START_WAIT_MS / 1000} s:\n${output}`)), START_WAIT_MS);
    child.stdout.on('data', () => {
      const match = /Card-capture host listening on/.test(output) ? /billing API listening on (http\S+)/.exec(output) : null;
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, url };
}

function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start', { timeout: TEST_TIMEOUT_MS }, () => {
  it('creates the default account on first start, prints its keys, serves with them and stops cleanly', async () => {
    const service = await startService({});
    try {
      const printed = /private API key: (\S+)/.exec(service.output());
      expect(printed).not.toBeNull();
      expect(service.output()).toMatch(/public API key: +pk_/);
      // The merchant console's address, and the first owner's one-time sign-in link (issue 29).
      expect(service.output()).toMatch(/Console: http\S+\/console\/ — first owner sign-in: http\S+\/console\/#\/invitation\/\S+/);
      const capture = /Card-capture host listening on (http\S+)/.exec(service.output())![1]!;
      const captureAnswer = await fetch(`${capture}/api/paymentsv2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(captureAnswer.status).toBe(401);
      const res = await fetch(`${service.url}/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Basic ${printed![1]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ firstName: 'Started', currency: 'USD' }),
      });
      expect(res.status).toBe(200);
      const customer = await res.json();
      expect(customer.uri).toMatch(new RegExp(`^${service.url}/v1/customers/\\d+$`));
      // An invoice PDF, rendered on a worker thread started from the compiled thread file.
      const call = (method: string, url: string, body?: unknown) =>
        fetch(`${service.url}${url}`, {
          method,
          headers: { authorization: `Basic ${printed![1]}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect((await call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: 11 })).status).toBe(200);
      const activated = await call('POST', '/v1/customeractivation?view=sideeffects', {
        customerId: customer.id,
        activateAllSubscriptions: true,
        activateAllDraftPurchases: false,
        temporarilyDisableAutoPost: false,
      });
      expect(activated.status).toBe(200);
      const pdf = await call('GET', `/v1/Invoices/pdf/${(await activated.json()).invoices[0].id}`);
      expect(pdf.status).toBe(200);
      expect(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      const store = await demoStorePlans(service.output());
      expect(store.page).toContain('<renew-checkout');
      expect(store.plans).toBe(200);
    } finally {
      expect(await stop(service.child), service.output()).toBe(0);
    }
    expect(service.output()).toMatch(/SIGTERM: finishing in-flight requests/);
  });

  it('keeps the data and the account across restarts and does not print new keys', async () => {
    const service = await startService({ RENEW_API_KEY: 'sk_ignored_because_an_account_exists' });
    try {
      expect(service.output()).not.toMatch(/private API key/);
      const res = await fetch(`${service.url}/v1/customers`, { headers: { authorization: 'Basic sk_ignored_because_an_account_exists' } });
      expect(res.status).toBe(401);
      // The demo store found the keys the first start saved.
      expect((await demoStorePlans(service.output())).plans).toBe(200);
    } finally {
      expect(await stop(service.child), service.output()).toBe(0);
    }
  });

  it('warns at every start when production runs on the sandbox gateway, and only then', async () => {
    const service = await startService({ NODE_ENV: 'production', RENEW_REQUIRE_TLS: 'false' });
    try {
      expect(service.output()).toMatch(/sandbox payment gateway/);
    } finally {
      expect(await stop(service.child), service.output()).toBe(0);
    }
    const development = await startService({});
    try {
      expect(development.output()).not.toMatch(/sandbox payment gateway/);
    } finally {
      expect(await stop(development.child), development.output()).toBe(0);
    }
  });

  it('refuses to start with an invalid configuration, naming the variable', async () => {
    await expect(startService({ RENEW_API_PORT: 'eighty' })).rejects.toThrow(/RENEW_API_PORT/);
  });

  it('listens on HTTPS when given a certificate and key', async () => {
    const certPath = path.join(dataDir, 'cert.pem');
    const keyPath = path.join(dataDir, 'key.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=localhost'],
      { stdio: 'ignore' },
    );
    const service = await startService({ RENEW_TLS_CERT: certPath, RENEW_TLS_KEY: keyPath, RENEW_REQUIRE_TLS: 'true' });
    try {
      expect(service.url).toMatch(/^https:/);
      const status = await new Promise<number>((resolve, reject) => {
        https
          .get(`${service.url}/v1/openapi.json`, { rejectUnauthorized: false }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
      expect(status).toBe(200);
      // The store's proxy cannot trust a self-signed certificate unless told to: it says so and the rest serves.
      expect(service.output()).toMatch(/Demo store not started: .*NODE_EXTRA_CA_CERTS/);
    } finally {
      expect(await stop(service.child), service.output()).toBe(0);
    }
  });
});
