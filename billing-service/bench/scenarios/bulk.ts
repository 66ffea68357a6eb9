/**
 * Figures 8a/8b: a bulk job of Cash payments (no gateway), processed in the
 * background by the server's worker, beside the same payments one at a time over HTTP.
 */
import http from 'node:http';
import { log, rotation } from '../harness.js';
import { httpRequest } from '../load.js';
import { integer } from '../report.js';
import type { RunningServer } from '../server-process.js';

export interface BulkFigures {
  records: number;
  submitMs: number;
  /** Records paid per second by the server's background worker, from Process to Completed. */
  perSecond: number;
  /** The baseline: the same kind of payment through POST /v1/payments, one request at a time. */
  sequentialPerSecond: number;
  status: string;
}

export const BULK_RECORDS = 2_000;
const BULK_BASELINE_REQUESTS = 300;

export async function benchBulk(app: RunningServer, customers: number[], headers: Record<string, string>): Promise<BulkFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = async (method: string, pathName: string, body?: unknown) => {
    const response = await httpRequest(agent, app.url, method, pathName, headers, body === undefined ? undefined : JSON.stringify(body));
    if (response.status !== 200) throw new Error(`${method} ${pathName} answered ${response.status}: ${response.body.slice(0, 300)}`);
    return JSON.parse(response.body) as { id: number; status: string; processedRecords: number };
  };
  const next = rotation(customers);
  try {
    log(`bulk payments: ${BULK_BASELINE_REQUESTS} POST /v1/payments one at a time (baseline)`);
    const sequentialStart = performance.now();
    for (let i = 0; i < BULK_BASELINE_REQUESTS; i++)
      await call('POST', '/v1/payments', { customerId: next(), amount: '1.00', paymentMethod: 'Cash' });
    const sequentialPerSecond = BULK_BASELINE_REQUESTS / ((performance.now() - sequentialStart) / 1000);

    log(`bulk payments: a job of ${integer(BULK_RECORDS)} Cash payments, submitted then processed`);
    const items = Array.from({ length: BULK_RECORDS }, (_, i) => ({
      customerId: next(),
      amount: '1.00',
      paymentMethod: 'Cash',
      reference: `bench-${i}`,
    }));
    const submitStart = performance.now();
    const job = await call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data: items });
    const submitMs = performance.now() - submitStart;
    const processStart = performance.now();
    await call('POST', '/v1/BulkApi/Process', { id: job.id });
    let current = job;
    while (current.status !== 'Completed' && performance.now() - processStart < 300_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = await call('GET', `/v1/BulkApi/${job.id}`);
    }
    const perSecond = current.processedRecords / ((performance.now() - processStart) / 1000);
    return { records: current.processedRecords, submitMs, perSecond, sequentialPerSecond, status: current.status };
  } finally {
    agent.destroy();
  }
}
