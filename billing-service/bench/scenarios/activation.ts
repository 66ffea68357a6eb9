/**
 * Figures 6a/6b: activation throughput, each request on a fresh Draft customer
 * with 3 Draft subscriptions; the pool holds exactly the run's requests (plus
 * one for the check before).
 */
import { activationBody, type BenchAccount } from '../fixtures.js';
import { SETTINGS, expectOk, throughput } from '../harness.js';
import type { ThroughputResult } from '../load.js';
import { integer } from '../report.js';
import type { RunningServer } from '../server-process.js';

export interface ActivationFigures {
  activation: ThroughputResult;
  /** Whether the last activated customer is Active afterwards. */
  activationCheck: string;
}

export async function benchActivation(
  db: string,
  app: RunningServer,
  account: BenchAccount,
  customers: number[],
  postgresDatabase?: string,
): Promise<ActivationFigures> {
  const headers = { authorization: account.authorization, 'content-type': 'application/json' };
  const first = customers[0];
  if (first === undefined) throw new Error('no pooled Draft customer to activate');
  await expectOk(app, 'POST', '/v1/customeractivation', headers, activationBody(first));
  let taken = 1;
  // past the end of the pool (never, by construction) customer 0 would be a visible 400
  const nextActivation = () => activationBody(customers[taken++] ?? 0);
  const activation = await throughput(`${db} POST /v1/customeractivation (fresh Draft customer, 3 subscriptions)`, app, {
    method: 'POST',
    path: '/v1/customeractivation',
    headers,
    body: nextActivation,
    requests: SETTINGS.activationRequests,
    postgresDatabase,
  });
  const lastId = customers[Math.min(taken, customers.length) - 1];
  const after = await expectOk(app, 'GET', `/v1/customers/${lastId}`, { authorization: account.authorization });
  const activationCheck = `${integer(taken)} of ${integer(customers.length)} pooled customers used; the last one (${lastId}) is now ${(JSON.parse(after.body) as { status?: string }).status ?? '?'}`;
  return { activation, activationCheck };
}
