/** Figures 3a/3b: `POST /v1/customers`, to the second account so the list pages keep their 100,000 customers. */
import { NEW_CUSTOMER_BODY, type BenchAccount } from '../fixtures.js';
import { expectOk, throughput } from '../harness.js';
import type { ThroughputResult, ThroughputSpec } from '../load.js';
import type { RunningServer } from '../server-process.js';

export async function benchCreateCustomer(
  label: string,
  app: RunningServer,
  postAccount: BenchAccount,
  options: Pick<ThroughputSpec, 'probe' | 'postgresDatabase'> = {},
): Promise<ThroughputResult> {
  const postHeaders = { authorization: postAccount.authorization, 'content-type': 'application/json' };
  const body = JSON.stringify(NEW_CUSTOMER_BODY);
  await expectOk(app, 'POST', '/v1/customers', postHeaders, body);
  return throughput(label, app, { method: 'POST', path: '/v1/customers', headers: postHeaders, body, ...options });
}
