/**
 * The fault test (`npm run test:faults`, run by .ci/run after the suites): Renew as operators run
 * it past one box, with the faults production meets. On a throwaway PostgreSQL cluster it starts
 * three billing API instances, two capture hosts and two workers (`npm start -- <role>`) behind
 * HAProxy (deploy/haproxy/renew.cfg, the documented layout), runs bounded mixed load through
 * HAProxy (customers, cards and payments with Idempotency-Keys, replays on another instance,
 * captures, a bulk job, webhooks, e-mails), kills an API instance and a worker with SIGKILL, and
 * restarts PostgreSQL twice (fast, then immediate). Then it checks from the database, a local
 * webhook receiver and an SMTP catcher that:
 *   - every acknowledged write is present exactly once, and every keyed retry got the first answer;
 *   - no Idempotency-Key is left claimed, and the gateway charged each key once;
 *   - the bulk job completed, each record paid once;
 *   - every process not killed is still running, and service came back within 30 s of each restart.
 * Then the phases of faults/pauses.ts: a worker frozen (SIGSTOP) for a minute while it holds a card
 * bulk job, the machine starved of CPU for a minute, and an immediate restart during a test-clock advance.
 * It prints its figures. Needs PostgreSQL and HAProxy installed (Debian: postgresql, haproxy).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { cpuStarvationPhase, pausedWorkerPhase, type PhaseContext, testClockRestartPhase } from './pauses.js';
import {
  ROOT,
  RECOVERY_LIMIT_MS,
  LOAD_WORKERS,
  BULK_RECORDS,
  API_KEY,
  PUBLIC_KEY,
  failures,
  figures,
  check,
  sleep,
  elapsed,
  freePort,
  Cluster,
  logDir,
  instances,
  startInstance,
  logTail,
  waitReady,
  webhookIds,
  webhookCustomers,
  startWebhookReceiver,
  emailsReceived,
  startSmtpCatcher,
  type Answer,
  send,
  retryable,
  stats,
  captureForm,
  count,
  keyed,
} from './harness.js';

// ---------- the run ----------

interface KeyedPayment {
  key: string;
  customerId: number;
  paymentId: number;
}

async function main() {
  const startedAt = performance.now();
  const cluster = new Cluster(await freePort());
  await cluster.init();
  const hooks = await startWebhookReceiver();
  const smtp = await startSmtpCatcher();
  const catalogPath = path.join(logDir, 'catalog.json');
  const catalog = JSON.parse(readFileSync(path.join(ROOT, 'billing-service/catalog/demo-catalog.json'), 'utf8'));
  catalog.rateLimits = { perMinute: 1_000_000, perDay: 10_000_000 };
  writeFileSync(catalogPath, JSON.stringify(catalog));

  const ports = {
    lbApi: await freePort(),
    lbCapture: await freePort(),
    api: [await freePort(), await freePort(), await freePort()],
    capture: [await freePort(), await freePort()],
  };
  const lbApi = `http://127.0.0.1:${ports.lbApi}`;
  const lbCapture = `http://127.0.0.1:${ports.lbCapture}`;
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: cluster.url,
    RENEW_API_KEY: API_KEY,
    RENEW_PUBLIC_API_KEY: PUBLIC_KEY,
    RENEW_CATALOG: catalogPath,
    RENEW_PUBLIC_BASE_URL: lbApi,
    RENEW_CAPTCHA: 'dev',
    RENEW_CAPTURE_IP_PER_MINUTE: '1000000',
    RENEW_CAPTURE_IP_PER_DAY: '10000000',
    RENEW_WEBHOOK_ALLOW_HTTP: 'true',
    RENEW_WEBHOOK_ALLOW_PRIVATE: 'true',
    RENEW_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    RENEW_BILLING_CLOCK_MS: '5000',
    RENEW_TEST_CLOCKS: 'true',
    RENEW_LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
  };

  // The first API instance migrates the database and creates the account; the others then start together.
  startInstance('api1', 'api', ports.api[0]!, env);
  if (!(await waitReady(`http://127.0.0.1:${ports.api[0]}/readyz`, 120_000)))
    throw new Error(`api1 did not start:\n${logTail(instances[0]!)}`);
  startInstance('api2', 'api', ports.api[1]!, env);
  startInstance('api3', 'api', ports.api[2]!, env);
  startInstance('capture1', 'capture', ports.capture[0]!, env);
  startInstance('capture2', 'capture', ports.capture[1]!, env);
  const worker1 = startInstance('worker1', 'worker', 0, env);
  startInstance('worker2', 'worker', 0, env);
  for (const instance of instances.filter((i) => i.role !== 'worker')) {
    if (!(await waitReady(`http://127.0.0.1:${instance.port}/readyz`, 120_000)))
      throw new Error(`${instance.name} did not start:\n${logTail(instance)}`);
  }
  await sleep(3_000); // the workers print nothing on a port: give them their start

  const haproxy = spawn('haproxy', ['-f', 'deploy/haproxy/renew.cfg', '-db'], {
    cwd: ROOT,
    env: {
      ...process.env,
      RENEW_LB_API_BIND: `127.0.0.1:${ports.lbApi}`,
      RENEW_LB_CAPTURE_BIND: `127.0.0.1:${ports.lbCapture}`,
      RENEW_API1: `127.0.0.1:${ports.api[0]}`,
      RENEW_API2: `127.0.0.1:${ports.api[1]}`,
      RENEW_API3: `127.0.0.1:${ports.api[2]}`,
      RENEW_CAPTURE1: `127.0.0.1:${ports.capture[0]}`,
      RENEW_CAPTURE2: `127.0.0.1:${ports.capture[1]}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  haproxy.stderr!.pipe(createWriteStream(path.join(logDir, 'haproxy.log')));
  if (!(await waitReady(`${lbApi}/readyz`, 20_000)))
    throw new Error(`HAProxy did not start: ${readFileSync(path.join(logDir, 'haproxy.log'), 'utf8')}`);
  figures.push(['start-up (cluster, 7 processes, HAProxy), s', (elapsed(startedAt) / 1000).toFixed(1)]);

  const endpoint = await send(`${lbApi}/v1/webhookEndpoints`, 'POST', {
    url: `http://127.0.0.1:${hooks.port}/hooks`,
    eventTypes: ['customer.created', 'payment.succeeded'],
  });
  if (endpoint.status !== 200) throw new Error(`webhook endpoint: ${JSON.stringify(endpoint.body)}`);

  // Customers for the bulk job (Check payments) made before the faults.
  const bulkCustomers: number[] = [];
  for (let i = 0; i < 30; i += 1) {
    const created = await send(`${lbApi}/v1/customers`, 'POST', { firstName: 'Bulk', lastName: `Payer ${i}`, currency: 'USD' });
    if (created.status !== 200) throw new Error(`bulk customer: ${JSON.stringify(created.body)}`);
    bulkCustomers.push(created.body.id);
  }

  // ----- load -----
  const acknowledgedCustomers = new Map<string, number>(); // e-mail -> id
  const inDoubtCustomers = new Set<string>();
  const keyedPayments: KeyedPayment[] = [];
  const replayMismatches: string[] = [];
  const stuckKeys: string[] = [];
  const captures: Array<{ customerId: number; paymentId: string | null }> = [];
  let loading = true;

  const liveApi = () => instances.filter((i) => i.role === 'api' && !i.killed).map((i) => `http://127.0.0.1:${i.port}`);
  async function oneCustomerRound(n: number) {
    // A unique mark per customer (the company name); one in ten has an e-mail address, so e-mails flow without flooding the catcher.
    const email = `shopper-${n}-${randomUUID().slice(0, 8)}`;
    const created = await send(`${lbApi}/v1/customers`, 'POST', {
      firstName: 'Load',
      lastName: `Shopper ${n}`,
      companyName: email,
      ...(n % 10 === 0 ? { primaryEmail: `${email}@example.com` } : {}),
      currency: 'USD',
    });
    count(created);
    if (created.status !== 200) {
      if (created.status === 0 || created.status >= 500) inDoubtCustomers.add(email);
      return;
    }
    const customerId = created.body.id as number;
    acknowledgedCustomers.set(email, customerId);
    if (n % 3 === 2) {
      // A capture through the capture hosts: token from the API, card and first payment on the capture host.
      const token = await keyed(`${lbApi}/v1/captureTokens`, { customerId, maxCollectionAmount: 5 }, `token-${customerId}`);
      if (token.status !== 200) return;
      const form = captureForm(customerId, token.body.token, 'rt_fault', '203.0.113.7');
      for (let attempt = 0; attempt < 60; attempt += 1) {
        form.set('recaptcha', `tok-${randomUUID()}`);
        let status = 0;
        let paymentId: string | null = null;
        try {
          const response = await fetch(`${lbCapture}/api/paymentsv2`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
            signal: AbortSignal.timeout(45_000),
          });
          status = response.status;
          paymentId = response.headers.get('renew-payment-id');
          await response.text();
        } catch {
          status = 0;
        }
        count({ status, body: null });
        if (status === 200) {
          captures.push({ customerId, paymentId });
          return;
        }
        if (!retryable(status)) return; // e.g. the token was spent by an attempt whose answer was lost
        await sleep(300);
      }
      return;
    }
    const key = `card-${customerId}`;
    const card = await keyed(
      `${lbApi}/v1/paymentmethods/creditcard`,
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
      key,
    );
    if (card.status !== 200) {
      if (retryable(card.status)) stuckKeys.push(key);
      return;
    }
    const paymentKey = `pay-${customerId}`;
    const body = { customerId, amount: 10 + (n % 7), paymentMethodId: card.body.id };
    const paid = await keyed(`${lbApi}/v1/payments`, body, paymentKey);
    if (paid.status !== 200) {
      if (retryable(paid.status)) stuckKeys.push(paymentKey);
      return;
    }
    keyedPayments.push({ key: paymentKey, customerId, paymentId: paid.body.id });
    // The same request replayed on another instance directly: the first answer, not a second payment.
    // (a replay aimed at an instance killed meanwhile goes to another live one, as a client's next try would)
    let replay: Answer = { status: 0, body: null };
    for (let attempt = 0; attempt < 5 && replay.status === 0; attempt += 1) {
      const others = liveApi();
      replay = await keyed(`${others[(n + attempt) % others.length]}/v1/payments`, body, paymentKey, 20_000);
    }
    if (replay.status !== 200 || replay.body.id !== paid.body.id)
      replayMismatches.push(`${paymentKey}: ${replay.status} ${JSON.stringify(replay.body).slice(0, 200)}`);
  }

  let next = 0;
  const loaders = Array.from({ length: LOAD_WORKERS }, async () => {
    while (loading) {
      next += 1;
      await oneCustomerRound(next);
      await sleep(50);
    }
  });

  const loadStart = performance.now();
  const at = (seconds: number) => sleep(Math.max(0, seconds * 1000 - elapsed(loadStart)));

  // A bulk job paid by the workers while one of them is killed.
  await at(10);
  const bulk = await send(`${lbApi}/v1/bulkPaymentSubmit`, 'POST', {
    accountUploadType: 'bulkPayment',
    data: Array.from({ length: BULK_RECORDS }, (_, i) => ({
      customerId: bulkCustomers[i % bulkCustomers.length],
      reference: `BULK-${i}`,
      amount: 1 + (i % 5),
      paymentMethod: 'Check',
    })),
  });
  if (bulk.status !== 200) throw new Error(`bulk submit: ${JSON.stringify(bulk.body).slice(0, 300)}`);
  const processed = await keyed(`${lbApi}/v1/BulkApi/Process`, { id: bulk.body.id }, `bulk-${bulk.body.id}`);
  check(processed.status === 200, `bulk job ${bulk.body.id} accepted for processing`);

  await at(20);
  const api2 = instances.find((i) => i.name === 'api2')!;
  api2.killed = true;
  worker1.killed = true;
  api2.child.kill('SIGKILL');
  worker1.child.kill('SIGKILL');
  console.log(`t+${(elapsed(loadStart) / 1000).toFixed(0)} s: killed api2 and worker1 with SIGKILL`);

  const recoveries: Record<string, number> = {};
  async function restart(mode: 'fast' | 'immediate') {
    console.log(`t+${(elapsed(loadStart) / 1000).toFixed(0)} s: PostgreSQL ${mode} shutdown`);
    cluster.stop(mode);
    await sleep(4_000); // the database is away for a few seconds
    cluster.start();
    const upAt = performance.now();
    // Recovered: every live instance ready again and a request through HAProxy served.
    const live = instances.filter((i) => !i.killed && i.role !== 'worker');
    const ready = await Promise.all(live.map((i) => waitReady(`http://127.0.0.1:${i.port}/readyz`, 60_000)));
    let served = false;
    while (!served && performance.now() - upAt < 60_000) {
      served = (await send(`${lbApi}/v1/customers?pageSize=1`, 'GET')).status === 200;
      if (!served) await sleep(100);
    }
    recoveries[mode] = elapsed(upAt);
    check(
      ready.every(Boolean) && served,
      `after the ${mode} restart every live instance is ready and serves (${recoveries[mode]} ms after PostgreSQL was up)`,
    );
  }
  await at(40);
  await restart('fast');
  await at(70);
  await restart('immediate');
  await at(95);
  loading = false;
  await Promise.all(loaders);
  figures.push(['load, s', (elapsed(loadStart) / 1000).toFixed(0)]);

  // ----- slow or stopped, not dead: a frozen worker, then a machine starved of CPU -----
  const phaseDb = new pg.Client({ connectionString: cluster.url });
  await phaseDb.connect();
  const phases: PhaseContext = { lbApi, env, db: phaseDb, cluster };
  await pausedWorkerPhase(phases);
  await cpuStarvationPhase(phases);
  await phaseDb.end();

  // ----- quiesce: the bulk job and the outboxes drain -----
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  const drainedBy = performance.now() + 120_000;
  let bulkStatus = '';
  let pendingOutbox = -1;
  while (performance.now() < drainedBy) {
    bulkStatus = (await db.query('select status from bulk_jobs where id = $1', [bulk.body.id])).rows[0].status;
    pendingOutbox = Number(
      (
        await db.query(
          `select (select count(*) from webhook_deliveries where status = 'Pending') + (select count(*) from email_outbox where status = 'Pending') as n`,
        )
      ).rows[0].n,
    );
    if (bulkStatus === 'Completed' && pendingOutbox === 0) break;
    await sleep(500);
  }

  // ----- checks -----
  check(stats.serverErrors === 0, `no 500 answered (${stats.serverErrors})`);
  for (const instance of instances) {
    if (instance.killed) continue;
    check(
      instance.exited === undefined,
      `${instance.name} (${instance.role}) is still running${instance.exited ? `: exited ${instance.exited}\n${logTail(instance)}` : ''}`,
    );
  }
  check(haproxy.exitCode === null, 'HAProxy is still running');
  for (const [mode, ms] of Object.entries(recoveries))
    check(ms <= RECOVERY_LIMIT_MS, `recovery after the ${mode} restart within ${RECOVERY_LIMIT_MS / 1000} s (${ms} ms)`);

  // every acknowledged customer once; those in doubt at most once
  const emails = [...acknowledgedCustomers.keys(), ...inDoubtCustomers];
  const rows = (
    await db.query(
      'select company_name as email, count(*)::int as n, min(id) as id from customers where company_name = any($1) group by company_name',
      [emails],
    )
  ).rows as Array<{ email: string; n: number; id: number }>;
  const byEmail = new Map(rows.map((r) => [r.email, r]));
  const missing = [...acknowledgedCustomers.keys()].filter((e) => byEmail.get(e)?.n !== 1);
  check(
    missing.length === 0,
    `every acknowledged customer (${acknowledgedCustomers.size}) is stored exactly once${missing.length ? `: ${missing.slice(0, 5).join(', ')}` : ''}`,
  );
  const doubled = [...inDoubtCustomers].filter((e) => (byEmail.get(e)?.n ?? 0) > 1);
  check(doubled.length === 0, `customers whose answer was lost (${inDoubtCustomers.size}) are stored at most once`);

  // every keyed payment once, with the answer replayed everywhere
  const paymentCounts = (
    await db.query('select customer_id, count(*)::int as n from payments where customer_id = any($1) group by customer_id', [
      keyedPayments.map((p) => p.customerId),
    ])
  ).rows as Array<{ customer_id: number; n: number }>;
  const twice = paymentCounts.filter((r) => r.n !== 1);
  check(
    keyedPayments.length > 0 && twice.length === 0 && paymentCounts.length === keyedPayments.length,
    `every keyed payment (${keyedPayments.length}) is recorded exactly once${
      twice.length
        ? `: customers ${twice
            .map((r) => r.customer_id)
            .slice(0, 5)
            .join(', ')}`
        : ''
    }`,
  );
  check(
    replayMismatches.length === 0,
    `every replay on another instance got the first answer${replayMismatches.length ? `: ${replayMismatches.slice(0, 3).join('; ')}` : ''}`,
  );
  check(stuckKeys.length === 0, `no Idempotency-Key stayed "in progress" for the client (${stuckKeys.length})`);
  const claimed = Number((await db.query('select count(*) as n from idempotency_keys where response_status is null')).rows[0].n);
  check(claimed === 0, `no Idempotency-Key is left claimed in the database (${claimed})`);
  // The (database-backed) sandbox gateway's own record: every charge it made is one recorded payment, or was paid back.
  const charges = (
    await db.query(`
    select o.result_id as id,
           (select count(*)::int from payments p where p.gateway_transaction_id = o.result_id) as recorded,
           exists (select 1 from sandbox_gateway_operations r where r.kind = 'refund' and r.status = 'succeeded' and r.transaction_id = o.result_id) as refunded
      from sandbox_gateway_operations o where o.kind = 'charge' and o.status = 'succeeded'`)
  ).rows as Array<{ id: string; recorded: number; refunded: boolean }>;
  const unaccounted = charges.filter((c) => c.recorded !== 1 && !(c.recorded === 0 && c.refunded));
  check(
    charges.length > 0 && unaccounted.length === 0,
    `every charge the gateway made is recorded exactly once or paid back (${charges.length} charges; ${unaccounted.length} not: ${JSON.stringify(unaccounted.slice(0, 3))})`,
  );
  figures.push(
    ['gateway charges', charges.length],
    ['gateway charges paid back (compensations)', charges.filter((c) => c.recorded === 0).length],
  );
  const attention = Number((await db.query('select count(*) as n from payments_needing_attention')).rows[0].n);
  check(attention === 0, `no money needs an operator's attention (${attention})`);

  // captures: one payment per acknowledged capture, none for a customer twice
  const captureCustomers = captures.map((c) => c.customerId);
  const capturePayments = (
    await db.query('select customer_id, count(*)::int as n from payments where customer_id = any($1) group by customer_id', [
      captureCustomers,
    ])
  ).rows as Array<{ customer_id: number; n: number }>;
  check(
    captures.length > 0 && capturePayments.length === captures.length && capturePayments.every((r) => r.n === 1),
    `every acknowledged capture with payment (${captures.length}) is recorded exactly once`,
  );

  // the bulk job: every record paid once
  const records = (
    await db.query(`select status, count(*)::int as n from bulk_job_records where job_id = $1 group by status`, [bulk.body.id])
  ).rows as Array<{ status: string; n: number }>;
  const bulkPayments = Number(
    (
      await db.query(`select count(*) as n from payments p where p.id in (select payment_id from bulk_job_records where job_id = $1)`, [
        bulk.body.id,
      ])
    ).rows[0].n,
  );
  const bulkRefs = Number((await db.query(`select count(*) as n from payments where customer_id = any($1)`, [bulkCustomers])).rows[0].n);
  check(
    bulkStatus === 'Completed' && records.length === 1 && records[0]!.status === 'Succeeded' && records[0]!.n === BULK_RECORDS,
    `the bulk job completed with every record (${BULK_RECORDS}) Succeeded: ${bulkStatus} ${JSON.stringify(records)}`,
  );
  check(
    bulkPayments === BULK_RECORDS && bulkRefs === BULK_RECORDS,
    `each bulk record paid exactly once (${bulkPayments} linked, ${bulkRefs} payments of the bulk customers)`,
  );

  // webhooks and e-mails delivered (at least once; a delivery in flight on a killed instance may be sent again)
  const createdMissing = [...acknowledgedCustomers.values()].filter((id) => !webhookCustomers.has(id));
  let pendingDetail = '';
  if (pendingOutbox !== 0) {
    const detail = await db.query(`
      select 'webhook' as kind, claimed_by is not null as claimed, attempts, round(extract(epoch from next_attempt_at - now())) as due_in_s, count(*)::int as n
        from webhook_deliveries where status = 'Pending' group by 1, 2, 3, 4
      union all
      select 'email', claimed_by is not null, attempts, round(extract(epoch from next_attempt_at - now())), count(*)::int
        from email_outbox where status = 'Pending' group by 1, 2, 3, 4`);
    pendingDetail = `: ${JSON.stringify(detail.rows)}`;
  }
  check(pendingOutbox === 0, `the webhook and e-mail outboxes drained (${pendingOutbox} pending${pendingDetail})`);
  check(
    createdMissing.length === 0,
    `customer.created delivered for every acknowledged customer${createdMissing.length ? ` (missing ${createdMissing.length})` : ''}`,
  );
  const duplicateDeliveries = [...webhookIds.values()].filter((n) => n > 1).length;
  const sentEmails = Number((await db.query(`select count(*) as n from email_outbox where status = 'Sent'`)).rows[0].n);
  check(
    emailsReceived.length >= sentEmails,
    `every e-mail marked sent reached the SMTP catcher (${emailsReceived.length} received, ${sentEmails} sent)`,
  );
  await db.end();

  figures.push(
    ['requests', stats.requests],
    ['200 answers', stats.ok],
    ['503 answers (database away)', stats.unavailable],
    ['retries with the same key', stats.retries],
    ['statuses', JSON.stringify(Object.fromEntries(stats.statuses))],
    ['customers acknowledged / in doubt', `${acknowledgedCustomers.size} / ${inDoubtCustomers.size}`],
    ['keyed payments', keyedPayments.length],
    ['captures with payment', captures.length],
    ['webhook deliveries received / sent twice', `${[...webhookIds.values()].reduce((a, b) => a + b, 0)} / ${duplicateDeliveries}`],
    ['e-mails received / sent twice', `${emailsReceived.length} / ${emailsReceived.length - new Set(emailsReceived).size}`],
    ['recovery after fast restart, ms', recoveries.fast ?? '-'],
    ['recovery after immediate restart, ms', recoveries.immediate ?? '-'],
  );

  // Last, as it moves the account's time: a database restart during a test-clock advance.
  await testClockRestartPhase(phases);

  haproxy.kill('SIGTERM');
  for (const instance of instances) if (!instance.killed) instance.child.kill('SIGTERM');
  await sleep(2_000);
  for (const instance of instances) if (instance.exited === undefined) instance.child.kill('SIGKILL');
  hooks.server.close();
  smtp.server.close();
  cluster.destroy();
}

main()
  .catch((error: Error) => {
    failures.push(error.message);
    console.error(error.stack ?? error.message);
    for (const instance of instances) instance.child.kill('SIGKILL');
  })
  .finally(() => {
    console.log('\nFault test figures:');
    for (const [name, value] of figures) console.log(`  ${name}: ${value}`);
    console.log(`logs: ${logDir}`);
    if (failures.length > 0) {
      console.log(`\n${failures.length} check(s) failed`);
      process.exit(1);
    }
    console.log('\nAll fault checks passed');
    process.exit(0);
  });
