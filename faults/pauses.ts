/**
 * The fault test's phases for processes that are slow or stopped but not dead (issue 35): a worker
 * frozen with SIGSTOP while it holds a card bulk job (and e-mails and webhooks in flight), the whole
 * machine starved of CPU, and PostgreSQL restarted immediately during a test-clock advance. Each
 * phase checks what it must keep, and adds its figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
  check,
  type Cluster,
  elapsed,
  emailsReceived,
  figures,
  instances,
  keyed,
  peerDelays,
  send,
  sleep,
  startInstance,
  webhookIds,
} from './harness.js';

export interface PhaseContext {
  lbApi: string;
  env: NodeJS.ProcessEnv;
  db: pg.Client;
  cluster: Cluster;
}

const CARD = {
  cardNumber: '4242424242424242',
  firstName: 'Ada',
  lastName: 'Lovelace',
  expirationMonth: 12,
  expirationYear: 30,
  cvv: '123',
};
const PAUSED_CARD_RECORDS = 40;
/** The longest the holder stays frozen while the other worker is waited for (it resumes once the job is done). */
const FREEZE_MS = 60_000;

/** Customers with an e-mail address and a default card, made through the balancer. */
async function customersWithCards(lbApi: string, n: number, mark: string): Promise<Array<{ id: number; cardId: number }>> {
  const made: Array<{ id: number; cardId: number }> = [];
  for (let i = 0; i < n; i += 1) {
    const email = `${mark}-${i}-${randomUUID().slice(0, 8)}`;
    const created = await keyed(
      `${lbApi}/v1/customers`,
      { firstName: 'Paused', lastName: `Payer ${i}`, companyName: email, primaryEmail: `${email}@example.com`, currency: 'USD' },
      `customer-${email}`,
    );
    if (created.status !== 200) throw new Error(`${mark} customer: ${JSON.stringify(created.body)}`);
    const card = await keyed(
      `${lbApi}/v1/paymentmethods/creditcard`,
      { customerId: created.body.id, ...CARD, isDefault: true },
      `card-${email}`,
    );
    if (card.status !== 200) throw new Error(`${mark} card: ${JSON.stringify(card.body)}`);
    made.push({ id: created.body.id, cardId: card.body.id });
  }
  return made;
}

/** The worker process an instance id (service_instances) names, by its pid. */
async function processOf(db: pg.Client, instanceId: string) {
  const row = (await db.query('select pid from service_instances where id = $1', [instanceId])).rows[0] as { pid: number } | undefined;
  return instances.find((i) => i.child.pid === row?.pid && !i.killed && i.exited === undefined);
}

/** Webhook ids and e-mail Message-IDs received more than once. */
function duplicatesReceived() {
  return {
    webhooks: [...webhookIds.values()].filter((n) => n > 1).length,
    emails: emailsReceived.length - new Set(emailsReceived).size,
  };
}

/**
 * A worker frozen (SIGSTOP) for a minute while it holds records of a card bulk job, with e-mails and
 * webhooks in flight (the peers answer slowly); the other worker finishes the job while it is frozen;
 * then it resumes (SIGCONT) and carries on with what it had claimed. Every record must be paid and
 * recorded once; the late holder's e-mails and webhooks are not sent again, but for those whose send
 * had already begun when it froze (at most the claims it held).
 */
export async function pausedWorkerPhase({ lbApi, env, db }: PhaseContext) {
  const worker3 = startInstance('worker3', 'worker', 0, env);
  const started = performance.now();
  while (!(await db.query('select 1 from service_instances where pid = $1', [worker3.child.pid])).rowCount) {
    if (performance.now() - started > 120_000) throw new Error('worker3 did not start');
    await sleep(500);
  }
  const customers = await customersWithCards(lbApi, PAUSED_CARD_RECORDS, 'paused');
  const before = duplicatesReceived();
  peerDelays.webhookMs = 2_000;
  peerDelays.smtpMs = 2_000;
  const bulk = await keyed(
    `${lbApi}/v1/bulkPaymentSubmit`,
    {
      accountUploadType: 'bulkPayment',
      data: customers.map((c, i) => ({ customerId: c.id, amount: 3 + (i % 4), paymentMethod: 'CreditCard', paymentMethodId: c.cardId })),
    },
    `paused-bulk-${randomUUID()}`,
  );
  if (bulk.status !== 200) throw new Error(`paused bulk submit: ${JSON.stringify(bulk.body).slice(0, 300)}`);
  const processed = await keyed(`${lbApi}/v1/BulkApi/Process`, { id: bulk.body.id }, `paused-process-${bulk.body.id}`);
  check(processed.status === 200, `card bulk job ${bulk.body.id} accepted for processing`);

  // Freeze a worker that holds some of its records, and e-mails or webhooks in flight too if one does within 20 s,
  // unless the job is nearly done: then any holder of its records, before none is left to freeze.
  let frozen: ChildProcess | undefined;
  let frozenId = '';
  const searchStart = performance.now();
  while (!frozen && performance.now() - searchStart < 60_000) {
    const unfinished = Number(
      (
        await db.query(`select count(*)::int as n from bulk_job_records where job_id = $1 and status in ('Pending', 'Processing')`, [
          bulk.body.id,
        ])
      ).rows[0].n,
    );
    const alsoSending = performance.now() - searchStart < 20_000 && unfinished > PAUSED_CARD_RECORDS / 4;
    const held = (
      await db.query(
        `select r.claimed_by from bulk_job_records r
          where r.job_id = $1 and r.status = 'Processing' and r.claimed_by is not null
            and (not $2 or exists (select 1 from email_outbox e where e.claimed_by = r.claimed_by and e.status = 'Pending')
                        or exists (select 1 from webhook_deliveries d where d.claimed_by = r.claimed_by and d.status = 'Pending'))
          limit 1`,
        [bulk.body.id, alsoSending],
      )
    ).rows[0] as { claimed_by: string } | undefined;
    if (held) {
      const instance = await processOf(db, held.claimed_by);
      if (instance) {
        instance.child.kill('SIGSTOP');
        frozen = instance.child;
        frozenId = held.claimed_by;
        console.log(`froze ${instance.name} (SIGSTOP) holding records of bulk job ${bulk.body.id}`);
      }
    }
    if (!frozen) await sleep(20);
  }
  if (!frozen) {
    // What the job came to instead (done before a worker was seen with it, or never taken), for the failure's reader.
    const seen = await db.query(
      `select j.status as job, r.status, p.decline_code, count(*)::int as n, min(r.errors::text) as errors
         from bulk_jobs j left join bulk_job_records r on r.job_id = j.id left join payments p on p.id = r.payment_id
        where j.id = $1 group by j.status, r.status, p.decline_code`,
      [bulk.body.id],
    );
    throw new Error(`no worker was seen holding a record of the card bulk job: ${JSON.stringify(seen.rows)}`);
  }
  const frozenAt = performance.now();
  const heldAtFreeze = Number(
    (
      await db.query(
        `select (select count(*) from email_outbox where claimed_by = $1 and status = 'Pending')
              + (select count(*) from webhook_deliveries where claimed_by = $1 and status = 'Pending') as n`,
        [frozenId],
      )
    ).rows[0].n,
  );
  const recordsAtFreeze = Number(
    (
      await db.query(`select count(*) as n from bulk_job_records where job_id = $1 and claimed_by = $2 and status = 'Processing'`, [
        bulk.body.id,
        frozenId,
      ])
    ).rows[0].n,
  );

  // The other worker finishes the job while this one is frozen.
  let completedIn = -1;
  while (performance.now() - frozenAt < FREEZE_MS + 60_000) {
    const status = (await db.query('select status from bulk_jobs where id = $1', [bulk.body.id])).rows[0].status;
    if (status === 'Completed') {
      completedIn = elapsed(frozenAt);
      break;
    }
    await sleep(250);
  }
  check(completedIn >= 0, `the other worker completed the card bulk job while the holder was frozen (${completedIn} ms after the freeze)`);
  // Resumed once its work was taken over and done: it has been frozen past the stale time by then.
  frozen.kill('SIGCONT');
  console.log(`resumed the frozen worker (SIGCONT) after ${Math.round(elapsed(frozenAt) / 1000)} s`);
  peerDelays.webhookMs = 0;
  peerDelays.smtpMs = 0;
  await sleep(15_000); // the late holder carries on with what it had claimed

  const records = (
    await db.query(
      `select r.status, (select count(*)::int from payments p where p.idempotency_key = 'bulk-record-' || r.id) as payments
         from bulk_job_records r where r.job_id = $1`,
      [bulk.body.id],
    )
  ).rows as Array<{ status: string; payments: number }>;
  const paidOnce = records.filter((r) => r.status === 'Succeeded' && r.payments === 1).length;
  check(
    paidOnce === PAUSED_CARD_RECORDS,
    `every card record paid and recorded once across the freeze (${paidOnce} of ${PAUSED_CARD_RECORDS}; ${recordsAtFreeze} held by the frozen worker)`,
  );
  const customerPayments = (
    await db.query('select customer_id, count(*)::int as n from payments where customer_id = any($1) group by customer_id', [
      customers.map((c) => c.id),
    ])
  ).rows as Array<{ n: number }>;
  check(
    customerPayments.length === PAUSED_CARD_RECORDS && customerPayments.every((r) => r.n === 1),
    'no customer of the card bulk job has a second payment',
  );
  const events = Number(
    (
      await db.query(`select count(*) as n from webhook_events where event_type = 'payment.succeeded' and customer_id = any($1)`, [
        customers.map((c) => c.id),
      ])
    ).rows[0].n,
  );
  check(events === PAUSED_CARD_RECORDS, `one payment.succeeded event per card record (${events})`);
  const after = duplicatesReceived();
  const sentAgain = after.webhooks - before.webhooks + (after.emails - before.emails);
  check(
    sentAgain <= heldAtFreeze,
    `e-mails and webhooks received twice across the freeze (${sentAgain}) are at most those the frozen worker had claimed (${heldAtFreeze})`,
  );
  figures.push(
    ['paused worker: records it held at the freeze', recordsAtFreeze],
    ['paused worker: job completed by the other worker, ms after the freeze', completedIn],
    ['paused worker: e-mails and webhooks it held at the freeze / received twice', `${heldAtFreeze} / ${sentAgain}`],
  );
}

/**
 * More busy processes than cores for a minute, no fault: live processes must not be judged dead (no
 * e-mail or webhook sent twice) and /readyz must answer every balancer check within a second.
 */
export async function cpuStarvationPhase({ lbApi, db }: PhaseContext) {
  const before = duplicatesReceived();
  const spinners = Array.from({ length: 4 }, () =>
    spawn(process.execPath, ['-e', 'const end = Date.now() + 60000; while (Date.now() < end) {}'], { stdio: 'ignore' }),
  );
  const started = performance.now();
  const payers = (await db.query(`select id from customers where primary_email like 'paused-%' order by id limit 20`)).rows.map(
    (r: { id: number }) => r.id,
  );
  let worstReadyMs = 0;
  let slowChecks = 0;
  const probes = instances
    .filter((i) => i.role !== 'worker' && !i.killed && i.exited === undefined)
    .map(async (instance) => {
      while (performance.now() - started < 60_000) {
        const at = performance.now();
        let ok = false;
        try {
          ok = (await fetch(`http://127.0.0.1:${instance.port}/readyz`, { signal: AbortSignal.timeout(5_000) })).status === 200;
        } catch {
          ok = false;
        }
        const took = elapsed(at);
        worstReadyMs = Math.max(worstReadyMs, took);
        if (!ok || took > 1_000) slowChecks += 1;
        await sleep(500);
      }
    });
  let n = 0;
  const load = (async () => {
    while (performance.now() - started < 60_000) {
      const customerId = payers[n % payers.length];
      n += 1;
      // A payment each: its e-mail and its webhook go through the workers.
      await keyed(`${lbApi}/v1/payments`, { customerId, amount: 1, paymentMethod: 'Cash' }, `starved-${randomUUID()}`, 30_000);
      await sleep(200);
    }
  })();
  await Promise.all([...probes, load]);
  for (const spinner of spinners) spinner.kill('SIGKILL');
  await sleep(20_000); // the outboxes drain
  const after = duplicatesReceived();
  const gaps: number[] = [];
  for (const instance of instances.filter((i) => i.role !== 'worker' && !i.killed && i.exited === undefined)) {
    const text = await (await fetch(`http://127.0.0.1:${instance.port}/metrics`)).text().catch(() => '');
    const gap = /^renew_instance_heartbeat_worst_gap_seconds (\S+)$/m.exec(text)?.[1];
    if (gap) gaps.push(Number(gap));
  }
  check(slowChecks === 0, `under CPU starvation every /readyz answered 200 within 1 s (worst ${worstReadyMs} ms, ${slowChecks} slow)`);
  check(
    after.webhooks === before.webhooks && after.emails === before.emails,
    `under CPU starvation no e-mail or webhook was sent twice (${after.emails - before.emails} e-mails, ${after.webhooks - before.webhooks} webhooks)`,
  );
  figures.push(
    ['CPU starvation: payments made', n],
    ['CPU starvation: worst /readyz, ms', worstReadyMs],
    ['worst heartbeat gap of the API and capture instances, s', gaps.length ? Math.max(...gaps).toFixed(2) : '-'],
  );
}

/**
 * PostgreSQL restarted immediately (`pg_ctl -m immediate`) during a test-clock advance: the advance in
 * flight fails, and an advance succeeds again within a minute of the database being back (the clock
 * is let go of by its live holder once the database answers, not after the advance's 15-minute lease).
 */
export async function testClockRestartPhase({ lbApi, cluster }: PhaseContext) {
  const clock = await send(`${lbApi}/v1/testclock`, 'GET');
  if (clock.status !== 200) throw new Error(`test clock: ${JSON.stringify(clock.body)}`);
  const from = new Date(clock.body.now as string);
  const long = send(`${lbApi}/v1/testclock/advance`, 'POST', { to: new Date(from.getTime() + 5 * 365 * 86_400_000).toISOString() });
  await sleep(1_500);
  console.log('PostgreSQL immediate shutdown during a test-clock advance');
  cluster.stop('immediate');
  await sleep(3_000);
  cluster.start();
  const upAt = performance.now();
  const first = await long;
  let advancedAfter = -1;
  let last: { status: number; body: unknown } = first;
  while (performance.now() - upAt < 90_000) {
    const now = await send(`${lbApi}/v1/testclock`, 'GET');
    if (now.status === 200) {
      last = await send(`${lbApi}/v1/testclock/advance`, 'POST', {
        to: new Date(new Date(now.body.now).getTime() + 86_400_000).toISOString(),
      });
      if (last.status === 200) {
        advancedAfter = elapsed(upAt);
        break;
      }
    }
    await sleep(1_000);
  }
  check(
    advancedAfter >= 0 && advancedAfter <= 60_000,
    `after an immediate restart during a test-clock advance (answered ${first.status}), an advance succeeds within 60 s (${advancedAfter} ms; last ${last.status})`,
  );
  figures.push(['test clock usable again after an immediate restart, ms', advancedAfter]);
}
