/**
 * The failover test (`npm run test:failover`, run by .ci/run): Renew on a two-node Patroni cluster
 * (deploy/patroni/, faults/patroni.ts) behind HAProxy, with two API instances, one capture host and
 * one worker under mixed keyed load (customers, cards, payments, refunds, activations, captures with
 * a payment). It kills the primary node outright (Patroni, PostgreSQL and its backends: SIGKILL), waits
 * for Patroni to promote the synchronous standby, brings the old node back as a standby, then makes a
 * planned switchover back. After each change of primary it checks that within 30 s every instance
 * serves writes again, and at the end, on the primary of the moment, that every acknowledged customer,
 * payment, refund and activation exists exactly once, that no answer was a 500 and that no process exited.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import {
  API_KEY,
  PUBLIC_KEY,
  RECOVERY_LIMIT_MS,
  ROOT,
  check,
  captureForm,
  count,
  elapsed,
  failures,
  figures,
  freePort,
  instances,
  keyed,
  logDir,
  logTail,
  retryable,
  sleep,
  startInstance,
  stats,
  waitReady,
} from './harness.js';
import { PatroniCluster } from './patroni.js';

const LOAD_WORKERS = 4;
const ANNUAL_FREQUENCY_ID = 12;

interface Acknowledged {
  customers: Map<string, number>;
  payments: Array<{ customerId: number; paymentId: number }>;
  refunds: Array<{ paymentId: number; refundId: number }>;
  activations: number[];
  captures: number[];
}

let cluster: PatroniCluster | undefined;

async function main() {
  const startedAt = performance.now();
  const patroni = new PatroniCluster();
  cluster = patroni;
  await patroni.start();
  figures.push(['Patroni cluster up (etcd, 2 nodes, HAProxy), s', (elapsed(startedAt) / 1000).toFixed(1)]);

  const catalogPath = path.join(logDir, 'catalog.json');
  const catalog = JSON.parse(readFileSync(path.join(ROOT, 'billing-service/catalog/demo-catalog.json'), 'utf8'));
  catalog.rateLimits = { perMinute: 1_000_000, perDay: 10_000_000 };
  writeFileSync(catalogPath, JSON.stringify(catalog));
  const ports = { api: [await freePort(), await freePort()], capture: await freePort() };
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: patroni.url,
    RENEW_API_KEY: API_KEY,
    RENEW_PUBLIC_API_KEY: PUBLIC_KEY,
    RENEW_CATALOG: catalogPath,
    RENEW_PUBLIC_BASE_URL: `http://127.0.0.1:${ports.api[0]}`,
    RENEW_CAPTCHA: 'dev',
    RENEW_CAPTURE_IP_PER_MINUTE: '1000000',
    RENEW_CAPTURE_IP_PER_DAY: '10000000',
    RENEW_BILLING_CLOCK_MS: '5000',
    RENEW_LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
  };
  startInstance('api1', 'api', ports.api[0]!, env);
  if (!(await waitReady(`http://127.0.0.1:${ports.api[0]}/readyz`, 120_000)))
    throw new Error(`api1 did not start:\n${logTail(instances[0]!)}`);
  startInstance('api2', 'api', ports.api[1]!, env);
  startInstance('capture1', 'capture', ports.capture, env);
  startInstance('worker1', 'worker', 0, env);
  for (const instance of instances.filter((i) => i.role !== 'worker'))
    if (!(await waitReady(`http://127.0.0.1:${instance.port}/readyz`, 120_000)))
      throw new Error(`${instance.name} did not start:\n${logTail(instance)}`);
  const apis = ports.api.map((port) => `http://127.0.0.1:${port}`);
  const captureUrl = `http://127.0.0.1:${ports.capture}`;

  const acknowledged: Acknowledged = { customers: new Map(), payments: [], refunds: [], activations: [], captures: [] };
  const lost: string[] = [];
  let loading = true;
  let round = 0;
  const loaders = Array.from({ length: LOAD_WORKERS }, async () => {
    while (loading) {
      round += 1;
      await oneRound(round, apis[round % 2]!, captureUrl, acknowledged, lost);
      await sleep(30);
    }
  });

  const recoveries: Record<string, number> = {};
  await sleep(8_000);
  // ----- the primary's machine dies -----
  const first = (await patroni.leader())!;
  const standby = first === 'node1' ? 'node2' : 'node1';
  const killedAt = performance.now();
  patroni.killNode(patroni.nodes.find((n) => n.name === first)!);
  console.log(`killed ${first} (Patroni, PostgreSQL and its backends) with SIGKILL`);
  await patroni.waitFor(async () => (await patroni.leader()) === standby, `${standby} is promoted`, 60_000);
  figures.push(['kill -9 of the primary → standby promoted, ms', elapsed(killedAt)]);
  recoveries['failover (kill -9 of the primary node)'] = await writesEverywhere(apis, captureUrl, patroni.url, killedAt);

  // ----- the old node comes back as a standby, then a planned switchover back to it -----
  await sleep(5_000);
  const back = patroni.nodes.find((n) => n.name === first)!;
  const rejoinAt = performance.now();
  patroni.startNode(back);
  await patroni.waitFor(async () => (await patroni.syncStandby()) === first, `${first} rejoins as the synchronous standby`, 120_000);
  figures.push([`${first} rejoined as synchronous standby, ms`, elapsed(rejoinAt)]);
  await sleep(3_000);
  const switchAt = performance.now();
  await patroni.switchover(standby, first);
  await patroni.waitFor(async () => (await patroni.leader()) === first, `the switchover to ${first}`, 60_000);
  figures.push(['planned switchover → new leader running, ms', elapsed(switchAt)]);
  recoveries['planned switchover'] = await writesEverywhere(apis, captureUrl, patroni.url, switchAt);
  await sleep(5_000);
  loading = false;
  await Promise.all(loaders);

  // ----- checks, on the primary of the moment -----
  for (const [what, ms] of Object.entries(recoveries))
    check(ms <= RECOVERY_LIMIT_MS, `after the ${what} every instance serves writes within ${RECOVERY_LIMIT_MS / 1000} s (${ms} ms)`);
  check(stats.serverErrors === 0, `no 500 answered (${stats.serverErrors})`);
  check(lost.length === 0, `no keyed write stayed unanswered (${lost.length}: ${lost.slice(0, 3).join('; ')})`);
  for (const instance of instances)
    check(
      instance.exited === undefined,
      `${instance.name} is still running${instance.exited ? `: exited ${instance.exited}\n${logTail(instance)}` : ''}`,
    );
  await checkStoredOnce(patroni.url, acknowledged);
  figures.push(
    ['requests / 200 / 503 / retries', `${stats.requests} / ${stats.ok} / ${stats.unavailable} / ${stats.retries}`],
    ['statuses', JSON.stringify(Object.fromEntries(stats.statuses))],
    [
      'acknowledged customers / payments / refunds / activations / captures',
      `${acknowledged.customers.size} / ${acknowledged.payments.length} / ${acknowledged.refunds.length} / ${acknowledged.activations.length} / ${acknowledged.captures.length}`,
    ],
    ['whole test, s', (elapsed(startedAt) / 1000).toFixed(0)],
  );
  for (const instance of instances) instance.child.kill('SIGTERM');
  await sleep(1_500);
}

/** One customer's story, all keyed: activation with a subscription, or card + payment + refund, or a capture with a payment. */
async function oneRound(n: number, api: string, captureUrl: string, acknowledged: Acknowledged, lost: string[]) {
  const mark = `failover-${n}-${randomUUID().slice(0, 8)}`;
  const customer = await keyed(
    `${api}/v1/customers`,
    { firstName: 'Fail', lastName: `Over ${n}`, companyName: mark, currency: 'USD' },
    `cust-${mark}`,
  );
  if (customer.status !== 200) return note(customer, `customer ${mark}`, lost);
  const customerId = customer.body.id as number;
  acknowledged.customers.set(mark, customerId);
  if (n % 3 === 0) {
    const subscription = await keyed(`${api}/v1/subscriptions`, { customerId, planFrequencyId: ANNUAL_FREQUENCY_ID }, `sub-${mark}`);
    if (subscription.status !== 200) return note(subscription, `subscription ${mark}`, lost);
    const activation = await keyed(
      `${api}/v1/customeractivation`,
      { customerId, activateAllSubscriptions: true, activateAllDraftPurchases: true, temporarilyDisableAutoPost: false },
      `act-${mark}`,
    );
    if (activation.status !== 200) return note(activation, `activation ${mark}`, lost);
    acknowledged.activations.push(customerId);
  } else if (n % 3 === 1) {
    const card = await keyed(
      `${api}/v1/paymentmethods/creditcard`,
      {
        customerId,
        cardNumber: '4242424242424242',
        firstName: 'Ada',
        lastName: 'Lovelace',
        expirationMonth: 12,
        expirationYear: 30,
        cvv: '123',
        isDefault: true,
      },
      `card-${mark}`,
    );
    if (card.status !== 200) return note(card, `card ${mark}`, lost);
    const payment = await keyed(`${api}/v1/payments`, { customerId, amount: 12, paymentMethodId: card.body.id }, `pay-${mark}`);
    if (payment.status !== 200) return note(payment, `payment ${mark}`, lost);
    acknowledged.payments.push({ customerId, paymentId: payment.body.id });
    const refund = await keyed(`${api}/v1/refunds`, { originalPaymentId: payment.body.id, amount: 2 }, `refund-${mark}`);
    if (refund.status !== 200) return note(refund, `refund ${mark}`, lost);
    acknowledged.refunds.push({ paymentId: payment.body.id, refundId: refund.body.id });
  } else {
    const token = await keyed(`${api}/v1/captureTokens`, { customerId, maxCollectionAmount: 5 }, `token-${mark}`);
    if (token.status !== 200) return note(token, `capture token ${mark}`, lost);
    const status = await capture(captureUrl, customerId, token.body.token);
    if (status === 200) acknowledged.captures.push(customerId);
  }
}

function note(answer: { status: number; body: unknown }, what: string, lost: string[]) {
  // A refusal that is not "try again" (4xx) is the client's; a retryable answer after 90 s of retries is a write left in doubt.
  if (retryable(answer.status))
    lost.push(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)} at ${new Date().toISOString()}`);
}

/** A card capture with a 5.00 payment on the capture host, retried with a fresh CAPTCHA while the database is away. */
async function capture(captureUrl: string, customerId: number, token: string): Promise<number> {
  for (let attempt = 0; attempt < 120; attempt += 1) {
    const form = captureForm(customerId, token, 'rt_failover', '203.0.113.9');
    let status = 0;
    try {
      const response = await fetch(`${captureUrl}/api/paymentsv2`, { method: 'POST', body: form, signal: AbortSignal.timeout(45_000) });
      status = response.status;
      await response.text();
    } catch {
      status = 0;
    }
    count({ status, body: null });
    if (!retryable(status)) return status;
    await sleep(300);
  }
  return 0;
}

/** Time from `since` until a keyed write succeeds through each API instance and the capture host is ready with a write of its own. */
async function writesEverywhere(apis: string[], captureUrl: string, databaseUrl: string, since: number): Promise<number> {
  await Promise.all(
    apis.map(async (api) => {
      const key = `probe-${randomUUID()}`;
      const answer = await keyed(`${api}/v1/customers`, { firstName: 'Probe', lastName: key.slice(0, 20), currency: 'USD' }, key, 60_000);
      check(answer.status === 200, `${api} serves a write after the change of primary (${answer.status})`);
    }),
  );
  const probe = await keyed(
    `${apis[0]}/v1/customers`,
    { firstName: 'Probe', lastName: 'Capture', currency: 'USD' },
    `probe-${randomUUID()}`,
  );
  const token = await keyed(`${apis[0]}/v1/captureTokens`, { customerId: probe.body.id, maxCollectionAmount: 5 }, `probe-${randomUUID()}`);
  const captured = await capture(captureUrl, probe.body.id, token.body.token);
  check(captured === 200, `the capture host records a card and a payment after the change of primary (${captured})`);
  // The worker has no port: its heartbeat on the new primary says it writes again.
  const beating = await heartbeatsOfAll(databaseUrl, since);
  check(beating, 'every instance, the worker included, writes its heartbeat on the new primary');
  return elapsed(since);
}

/** Whether every instance's process wrote a heartbeat on the current primary after `since` (waits up to 30 s). */
async function heartbeatsOfAll(databaseUrl: string, since: number): Promise<boolean> {
  const pids = instances.map((i) => i.child.pid);
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const db = new pg.Client({ connectionString: databaseUrl });
    try {
      await db.connect();
      const { rows } = await db.query(
        `select distinct pid from service_instances where pid = any($1) and heartbeat_at > now() - make_interval(secs => $2)`,
        [pids, (performance.now() - since) / 1000],
      );
      if (rows.length === pids.length) return true;
    } catch {
      // the primary is still settling
    } finally {
      await db.end().catch(() => {});
    }
    await sleep(500);
  }
  return false;
}

async function checkStoredOnce(url: string, acknowledged: Acknowledged) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const primary = (await db.query('select not pg_is_in_recovery() as primary')).rows[0].primary;
  check(primary === true, 'the checks read the primary');
  const countBy = async (query: string, ids: unknown[]) =>
    new Map(((await db.query(query, [ids])).rows as Array<{ id: string | number; n: number }>).map((r) => [String(r.id), r.n]));
  const once = (counts: Map<string, number>, ids: Array<string | number>) => ids.filter((id) => counts.get(String(id)) !== 1);

  const marks = [...acknowledged.customers.keys()];
  const customers = await countBy(
    'select company_name as id, count(*)::int as n from customers where company_name = any($1) group by 1',
    marks,
  );
  const missingCustomers = once(customers, marks);
  check(
    missingCustomers.length === 0,
    `every acknowledged customer (${marks.length}) is stored exactly once (${missingCustomers.slice(0, 3)})`,
  );

  const payers = acknowledged.payments.map((p) => p.customerId);
  const payments = await countBy(
    'select customer_id as id, count(*)::int as n from payments where customer_id = any($1) group by 1',
    payers,
  );
  const badPayments = once(payments, payers);
  check(
    payers.length > 0 && badPayments.length === 0,
    `every acknowledged payment (${payers.length}) is stored exactly once (${badPayments.slice(0, 3)})`,
  );

  const refunded = acknowledged.refunds.map((r) => r.paymentId);
  const refunds = await countBy('select payment_id as id, count(*)::int as n from refunds where payment_id = any($1) group by 1', refunded);
  const badRefunds = once(refunds, refunded);
  check(
    refunded.length > 0 && badRefunds.length === 0,
    `every acknowledged refund (${refunded.length}) is stored exactly once (${badRefunds.slice(0, 3)})`,
  );

  const activated = acknowledged.activations;
  const invoices = await countBy(
    'select customer_id as id, count(*)::int as n from invoices where customer_id = any($1) group by 1',
    activated,
  );
  const active = await countBy(`select id, 1 as n from customers where id = any($1) and status = 'Active'`, activated);
  const badActivations = [...once(invoices, activated), ...once(active, activated)];
  check(
    activated.length > 0 && badActivations.length === 0,
    `every acknowledged activation (${activated.length}) left an Active customer with exactly one invoice (${badActivations.slice(0, 3)})`,
  );

  const captured = acknowledged.captures;
  const capturePayments = await countBy(
    'select customer_id as id, count(*)::int as n from payments where customer_id = any($1) group by 1',
    captured,
  );
  const badCaptures = once(capturePayments, captured);
  check(
    badCaptures.length === 0,
    `every capture with a payment (${captured.length}) recorded exactly one payment (${badCaptures.slice(0, 3)})`,
  );
  await db.end();
}

main()
  .catch((error: Error) => {
    failures.push(error.message);
    console.error(error.stack ?? error.message);
    for (const instance of instances) instance.child.kill('SIGKILL');
  })
  .finally(async () => {
    for (const instance of instances) if (instance.exited === undefined) instance.child.kill('SIGKILL');
    await cluster?.destroy();
    console.log('\nFailover test figures:');
    for (const [name, value] of figures) console.log(`  ${name}: ${value}`);
    console.log(`logs: ${logDir}`);
    if (failures.length > 0) {
      console.log(`\n${failures.length} check(s) failed`);
      process.exit(1);
    }
    console.log('\nAll failover checks passed');
    process.exit(0);
  });
