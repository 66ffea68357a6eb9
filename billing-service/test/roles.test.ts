import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start -- api | capture | worker`: one role per process, as operators run them. On the
 * embedded database one process at a time holds the data folder, so the roles take turns on it:
 * the API queues a bulk job that only a worker pays.
 */
const repositoryDir = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-roles-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const API_KEY = 'sk_roles_test_0123456789abcdef0123';
const auth = { authorization: `Basic ${API_KEY}`, 'content-type': 'application/json' };

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  match: RegExpExecArray;
}

async function startRole(role: string, banner: RegExp): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', role], {
    cwd: repositoryDir,
    env: {
      ...process.env,
      RENEW_API_PORT: '0',
      RENEW_CAPTURE_PORT: '0',
      RENEW_DATA_DIR: dataDir,
      RENEW_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      RENEW_CAPTCHA: 'dev',
      RENEW_API_KEY: API_KEY,
      RENEW_PUBLIC_API_KEY: 'pk_roles_test_0123456789abcdef0123',
      RENEW_BILLING_CLOCK_MS: '1000',
    },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 100 s:\n${output}`)), 100_000);
    child.stdout.on('data', () => {
      const found = banner.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, match };
}

function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start -- <role>', () => {
  let jobId = 0;

  it('api: serves the API and runs no background task (a bulk job waits for a worker)', async () => {
    const api = await startRole('api', /billing API listening on (http\S+)/);
    try {
      const url = api.match[1]!;
      expect(api.output()).toContain('background tasks run in `npm start -- worker` processes');
      expect(api.output()).not.toContain('Card-capture host');
      const ready = await (await fetch(`${url}/readyz`)).json();
      expect(ready.checks.backgroundTasks).toEqual({});
      const customer = await (
        await fetch(`${url}/v1/customers`, { method: 'POST', headers: auth, body: JSON.stringify({ firstName: 'Role', currency: 'USD' }) })
      ).json();
      const job = await (
        await fetch(`${url}/v1/bulkPaymentSubmit`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            accountUploadType: 'bulkPayment',
            data: [{ customerId: customer.id, reference: 'R-1', amount: 4, paymentMethod: 'Check' }],
          }),
        })
      ).json();
      jobId = job.id;
      expect(
        (await fetch(`${url}/v1/BulkApi/Process`, { method: 'POST', headers: auth, body: JSON.stringify({ id: jobId }) })).status,
      ).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect((await (await fetch(`${url}/v1/BulkApi/${jobId}`, { headers: auth })).json()).status).toBe('Processing');
    } finally {
      expect(await stop(api.child)).toBe(0);
    }
  }, 250_000);

  it('worker: listens on no port and pays the bulk job the API queued', async () => {
    const worker = await startRole(
      'worker',
      /Renew worker running \(database: embedded[^)]*\): billing clock every 1000 ms, bulk payments, webhook deliveries; no port/,
    );
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(worker.output()).not.toMatch(/listening on/);
    expect(await stop(worker.child)).toBe(0);
    const api = await startRole('api', /billing API listening on (http\S+)/);
    try {
      const job = await (await fetch(`${api.match[1]}/v1/BulkApi/${jobId}`, { headers: auth })).json();
      expect(job).toMatchObject({ status: 'Completed', processedRecords: 1 });
    } finally {
      await stop(api.child);
    }
  }, 300_000);

  it('capture: serves the card-capture host alone', async () => {
    const capture = await startRole('capture', /Card-capture host listening on (http\S+)/);
    try {
      expect(capture.output()).not.toContain('billing API listening');
      const answer = await fetch(`${capture.match[1]}/api/paymentsv2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(401);
      expect((await fetch(`${capture.match[1]}/readyz`)).status).toBe(200);
    } finally {
      expect(await stop(capture.child)).toBe(0);
    }
  }, 250_000);

  it('refuses a role it does not know', async () => {
    await expect(startRole('billing', /never/)).rejects.toThrow(/unknown role "billing": use one of api, capture, worker/);
  });
});
