import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { claimRecords } from '../../src/bulk/repository.js';
import { claimClockForAdvance, releaseClock, setFrozenTime } from '../../src/clock/repository.js';
import { InstanceLiveness } from '../../src/db/instance-liveness.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { SandboxGateway } from '../../src/gateway/sandbox-gateway.js';
import { claimDueDeliveries, confirmDeliveryClaim, markAttemptFailed, markDelivered } from '../../src/outbox/webhook-repository.js';
import { cardBody } from '../helpers/api-fixtures.js';
import { BASE_URL, basicAuth, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A process killed at any instruction leaves its claims behind. Each claim names its instance;
 * once that instance's heartbeat is stale, another takes the claim over within seconds (here
 * 600 ms), where a fixed lease made it wait 5 to 15 minutes (or 24 hours for a key).
 */
const LIVENESS = { heartbeatMs: 100, staleAfterMs: 600 };

let t: TestApp;
let dying: FastifyInstance | undefined;
beforeAll(async () => {
  // No workers in the main app: the dead instance claims the work first, and a second app takes it over.
  t = await startTestApp({
    app: {
      liveness: LIVENESS,
      testClocks: true,
      bulkWorker: false,
      webhookWorker: false,
      webhooks: { allowHttp: true, allowPrivate: true, timeoutMs: 2_000 },
    },
  });
  await t.app.ready();
});
afterAll(async () => {
  await dying?.close();
  await t.close();
});

/** An instance that beat once and then "died" (its heartbeat never runs again, as after SIGKILL). */
async function deadInstance(): Promise<InstanceLiveness> {
  const instance = new InstanceLiveness(t.database.db, 'killed', { heartbeatMs: 3_600_000, staleAfterMs: LIVENESS.staleAfterMs });
  await instance.start();
  return instance;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A webhook receiver on a local port, keeping every body it was sent. */
async function startReceiver() {
  const received: string[] = [];
  const receiver = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      received.push(text);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return { received, receiver, port: (receiver.address() as AddressInfo).port };
}

/**
 * A new endpoint (the receiver on `port`) and a customer whose creation it is told of; the delivery
 * claimed by `holder`. Earlier tests' endpoints are deleted first, so the claim is that delivery alone.
 */
async function claimedDelivery(holder: InstanceLiveness, port: number) {
  await t.database.db.updateTable('webhookEndpoints').set({ deletedAt: new Date() }).where('deletedAt', 'is', null).execute();
  const endpoint = await t.call('POST', '/v1/webhookEndpoints', { url: `http://127.0.0.1:${port}/hook`, eventTypes: ['customer.created'] });
  expect(endpoint.statusCode, endpoint.body).toBe(200);
  const customerId = (await t.call('POST', '/v1/customers', {})).json().id as number;
  const claimed = await claimDueDeliveries(t.database.db, holder, new Date(Date.now() + 1_000), 10, 10 * 60_000);
  expect(claimed.length).toBeGreaterThan(0);
  return { endpointId: endpoint.json().id as number, customerId, claimed };
}

/** Another instance of the service, with a webhook worker and the tests' short liveness. */
function webhookWorker() {
  return buildApp({
    db: t.database.db,
    catalog: t.catalog,
    rateLimitStore: new MemoryRateLimitStore(),
    publicBaseUrl: BASE_URL,
    bulkWorker: false,
    liveness: LIVENESS,
    webhooks: { allowHttp: true, allowPrivate: true, timeoutMs: 2_000, pollMs: 50 },
  });
}

describe('claims of a dead instance are taken over within seconds', () => {
  it('a keyed payment in flight on an instance that died: the retry on another instance runs, once', async () => {
    // The first instance's gateway never answers and its heartbeat stops after the first beat: killed mid-charge.
    const sandbox = new SandboxGateway(t.database.db);
    const hanging = {
      name: 'hanging',
      validateCard: sandbox.validateCard.bind(sandbox),
      resumeCardValidation: sandbox.resumeCardValidation.bind(sandbox),
      dueEvents: sandbox.dueEvents.bind(sandbox),
      acknowledgeEvents: sandbox.acknowledgeEvents.bind(sandbox),
      submitDisputeEvidence: sandbox.submitDisputeEvidence.bind(sandbox),
      refund: sandbox.refund.bind(sandbox),
      findRefund: sandbox.findRefund.bind(sandbox),
      charge: () => new Promise<never>(() => undefined),
    };
    dying = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      gateway: hanging,
      gatewayTimeoutMs: 120_000,
      bulkWorker: false,
      webhookWorker: false,
      liveness: { heartbeatMs: 3_600_000, staleAfterMs: LIVENESS.staleAfterMs },
    });
    await dying.ready();
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id as number;
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody(), isDefault: true });
    expect(card.statusCode).toBe(200);
    const key = `killed-${customerId}`;
    const body = { customerId, amount: 12.5, paymentMethodId: card.json().id };
    const headers = { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json', 'idempotency-key': key };
    void dying.inject({ method: 'POST', url: '/v1/payments', headers, payload: JSON.stringify(body) });
    await until(
      'the key to be claimed by the dying instance',
      async () =>
        (await t.database.db.selectFrom('idempotencyKeys').select('claimedBy').where('key', '=', key).executeTakeFirst())?.claimedBy ??
        undefined,
    );

    const retry = await t.call('POST', '/v1/payments', body, { headers: { 'idempotency-key': key } });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ customerId, amount: 12.5, status: 'Succeeded' });
    const again = await t.call('POST', '/v1/payments', body, { headers: { 'idempotency-key': key } });
    expect(again.json().id).toBe(retry.json().id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const payments = await t.database.db.selectFrom('payments').select('id').where('customerId', '=', customerId).execute();
    expect(payments).toHaveLength(1);
  });

  it('a keyed payment whose instance died after its commit, before its answer was saved: the retry answers that payment', async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id as number;
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody(), isDefault: true });
    const key = `committed-${customerId}`;
    const body = { customerId, amount: 30, paymentMethodId: card.json().id };
    const first = await t.call('POST', '/v1/payments', body, { headers: { 'idempotency-key': key } });
    expect(first.statusCode).toBe(200);
    // What a SIGKILL between the payment's commit and the key's answer leaves: the key claimed by a dead instance, no answer.
    const dead = await deadInstance();
    await t.database.db
      .updateTable('idempotencyKeys')
      .set({ responseStatus: null, responseBody: null, claimedBy: dead.id })
      .where('key', '=', key)
      .execute();
    const retry = await t.call('POST', '/v1/payments', body, { headers: { 'idempotency-key': key } });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().id).toBe(first.json().id);
    const payments = await t.database.db.selectFrom('payments').select('id').where('customerId', '=', customerId).execute();
    expect(payments).toHaveLength(1);
    const charges = await t.database.db
      .selectFrom('sandboxGatewayOperations')
      .select('resultId')
      .where('idempotencyKey', '=', `acct_${t.account.accountId}:${key}`)
      .execute();
    expect(charges).toHaveLength(1);
  });

  it('a keyed payment whose commit went through as the connection dropped (answered 503): the retry answers that payment', async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id as number;
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody(), isDefault: true });
    const key = `in-doubt-${customerId}`;
    const body = { customerId, amount: 21, paymentMethodId: card.json().id };
    const first = await t.call('POST', '/v1/payments', body, { headers: { 'idempotency-key': key } });
    expect(first.statusCode).toBe(200);
    // What a commit that reached the disk while its connection broke leaves: the request answered 503, so the key was freed.
    await t.database.db
      .updateTable('idempotencyKeys')
      .set({ responseStatus: null, responseBody: null, claimedBy: null })
      .where('key', '=', key)
      .execute();
    const retry = await t.call('POST', '/v1/payments', body, { headers: { 'idempotency-key': key } });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().id).toBe(first.json().id);
    const payments = await t.database.db.selectFrom('payments').select('id').where('customerId', '=', customerId).execute();
    expect(payments).toHaveLength(1);
  });

  it('a bulk record claimed by an instance that died is paid by the live one, without waiting out the 5-minute lease', async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id as number;
    const submitted = await t.call('POST', '/v1/bulkPaymentSubmit', {
      accountUploadType: 'bulkPayment',
      data: [{ customerId, reference: 'DEAD-1', amount: 7, paymentMethod: 'Check' }],
    });
    expect(submitted.statusCode, submitted.body).toBe(200);
    const jobId = submitted.json().id as number;
    expect((await t.call('POST', '/v1/BulkApi/Process', { id: jobId })).statusCode).toBe(200);
    const dead = await deadInstance();
    const claimed = await claimRecords(t.database.db, dead, new Date(), 5 * 60_000, 10);
    expect(claimed.map((r) => r.jobId)).toContain(jobId);
    // An instance with a bulk worker (the default 5-minute lease), started after the death.
    const worker = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      webhookWorker: false,
      liveness: LIVENESS,
      bulkWorker: { pollMs: 100 },
    });
    try {
      await worker.ready();
      const record = await until('the record to be paid', async () => {
        const row = await t.database.db
          .selectFrom('bulkJobRecords')
          .select(['status', 'paymentId', 'claimedBy'])
          .where('jobId', '=', jobId)
          .executeTakeFirstOrThrow();
        return row.status === 'Succeeded' ? row : undefined;
      });
      expect(record.paymentId).not.toBeNull();
      expect(record.claimedBy).toBe(worker.ctx.instance.id);
      const paid = await t.database.db.selectFrom('payments').select(['amount']).where('customerId', '=', customerId).execute();
      expect(paid.map((p) => Number(p.amount))).toEqual([7]);
    } finally {
      await worker.close();
    }
  });

  it('a webhook delivery claimed by an instance that died is sent by the live one, once', async () => {
    const dead = await deadInstance();
    const { received, receiver, port } = await startReceiver();
    try {
      const { customerId, claimed } = await claimedDelivery(dead, port);
      const worker = await webhookWorker();
      try {
        await worker.ready();
        await until('the delivery', async () => (received.some((text) => text.includes(`"id":${customerId}`)) ? true : undefined));
        // The worker records the outcome after the receiver has the body: wait for the record, then check it.
        const deliveryRows = () =>
          t.database.db
            .selectFrom('webhookDeliveries')
            .select(['status', 'attempts'])
            .where(
              'id',
              'in',
              claimed.map((c) => c.id),
            )
            .execute();
        await until('the recorded outcome', async () => ((await deliveryRows()).every((r) => r.status !== 'Pending') ? true : undefined));
        const rows = await deliveryRows();
        expect(rows.every((r) => r.status === 'Succeeded' && r.attempts === 1)).toBe(true);
        expect(received.filter((text) => text.includes(`"id":${customerId}`))).toHaveLength(1);
      } finally {
        await worker.close();
      }
    } finally {
      receiver.close();
    }
  });

  it('a test-clock advance whose instance died no longer locks the account: the next advance resumes it', async () => {
    const dead = await deadInstance();
    const now = (await t.call('GET', '/v1/testclock')).json().now as string;
    expect(await claimClockForAdvance(t.database.db, dead, t.account.accountId, new Date(now), new Date(), 15 * 60_000)).toMatchObject({
      claim: 'claimed',
    });
    // While the holder is alive (within its stale window) another advance is refused…
    const target = new Date(new Date(now).getTime() + 3 * 86_400_000).toISOString();
    const refused = await t.call('POST', '/v1/testclock/advance', { to: target });
    expect(refused.statusCode).toBe(409);
    // …and once its heartbeat is stale, the advance takes the clock over and runs.
    const advanced = await until('the advance to take over the clock', async () => {
      const response = await t.call('POST', '/v1/testclock/advance', { to: target });
      return response.statusCode === 409 ? undefined : response;
    });
    expect(advanced.statusCode).toBe(200);
    expect(advanced.json()).toMatchObject({ now: target, days: 3 });
    const clock = await t.database.db
      .selectFrom('accountClocks')
      .selectAll()
      .where('accountId', '=', t.account.accountId)
      .executeTakeFirstOrThrow();
    expect(clock.advancingSince).toBeNull();
    expect(clock.advancingBy).toBeNull();
  });

  it('a live instance keeps its claims: its heartbeat row is fresh and others do not judge it dead', async () => {
    const live = t.app.ctx.instance;
    await until('this instance to judge others', async () => (live.mayJudgeOthers ? true : undefined));
    const row = await t.database.db.selectFrom('serviceInstances').selectAll().where('id', '=', live.id).executeTakeFirstOrThrow();
    expect(row.role).toBe('api');
    const dead = await deadInstance();
    await new Promise((resolve) => setTimeout(resolve, LIVENESS.staleAfterMs + 200));
    const { rows } = await (await import('kysely')).sql<{ id: string; gone: boolean }>`
      select h.holder as id, ${live.holderGone('h.holder')} as gone from (select ${live.id}::text as holder union all select ${dead.id}::text) h`.execute(
      t.database.db,
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.gone]))).toEqual({ [live.id]: false, [dead.id]: true });
  });
});

/**
 * A paused process (SIGSTOP, a long GC, a throttled container) is not dead: it resumes and carries on
 * with what it had claimed. Its claims were taken over meanwhile; each carries a token that changed
 * with the take-over, so the late holder's completion changes nothing and it does not send.
 */
describe('fenced claims: a holder that pauses and resumes after a take-over changes nothing', () => {
  it('a webhook delivery: the taker sends it once; the late holder neither sends nor records', async () => {
    const { received, receiver, port } = await startReceiver();
    const frozen = await deadInstance();
    try {
      const { endpointId, customerId, claimed } = await claimedDelivery(frozen, port);
      const [held] = claimed;
      expect(claimed).toHaveLength(1);
      // The live worker takes the delivery over once the frozen holder's heartbeat is stale, and sends it.
      const worker = await webhookWorker();
      try {
        await worker.ready();
        const status = () =>
          t.database.db.selectFrom('webhookDeliveries').select(['status', 'attempts']).where('id', '=', held!.id).executeTakeFirstOrThrow();
        await until('the taker records the delivery', async () => ((await status()).status === 'Succeeded' ? true : undefined));
      } finally {
        await worker.close();
      }
      // The frozen holder resumes: its claim is no longer its own, so it does not send...
      expect(await confirmDeliveryClaim(t.database.db, frozen, held!, new Date(Date.now() + 60_000))).toBe(false);
      // ...and what it would record after a send it made before freezing changes nothing.
      expect(await markDelivered(t.database.db, held!, new Date(), 200)).toBe(false);
      expect(
        await markAttemptFailed(t.database.db, held!, {
          now: new Date(),
          httpStatus: 500,
          error: 'late',
          retryAt: null,
          disableAfterMs: 1,
        }),
      ).toEqual({ held: false, disabled: false });
      const row = await t.database.db
        .selectFrom('webhookDeliveries')
        .select(['status', 'attempts', 'lastError'])
        .where('id', '=', held!.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'Succeeded', attempts: 1, lastError: null });
      expect(received.filter((text) => text.includes(`"id":${customerId}`))).toHaveLength(1);
      const endpointRow = await t.database.db
        .selectFrom('webhookEndpoints')
        .select('status')
        .where('id', '=', endpointId)
        .executeTakeFirstOrThrow();
      expect(endpointRow.status).toBe('Enabled');
    } finally {
      await frozen.stop();
      receiver.close();
    }
  });

  it('a holder whose own heartbeat has gone stale does not send, even before anyone took its claim', async () => {
    const frozen = await deadInstance();
    try {
      const {
        endpointId,
        claimed: [held],
      } = await claimedDelivery(frozen, 9);
      // Fresh: it may send.
      expect(await confirmDeliveryClaim(t.database.db, frozen, held!, new Date(Date.now() + 60_000))).toBe(true);
      // Past half its stale window without a beat: the others may take it any moment, so it must not send.
      await new Promise((resolve) => setTimeout(resolve, LIVENESS.staleAfterMs));
      expect(await confirmDeliveryClaim(t.database.db, frozen, held!, new Date(Date.now() + 60_000))).toBe(false);
      await frozen.beat();
      expect(await confirmDeliveryClaim(t.database.db, frozen, held!, new Date(Date.now() + 60_000))).toBe(true);
      expect((await t.call('DELETE', `/v1/webhookEndpoints/${endpointId}`)).statusCode).toBe(204);
    } finally {
      await frozen.stop();
    }
  });

  it('a test-clock advance: the taker holds the clock; the late holder neither moves the time nor lets go of it', async () => {
    const frozen = await deadInstance();
    try {
      const now = new Date((await t.call('GET', '/v1/testclock')).json().now as string);
      const late = await claimClockForAdvance(t.database.db, frozen, t.account.accountId, now, new Date(), 15 * 60_000);
      expect(late.claim).toBe('claimed');
      await new Promise((resolve) => setTimeout(resolve, LIVENESS.staleAfterMs + 200));
      const taker = await until('the live instance takes the clock over', async () => {
        const claimed = await claimClockForAdvance(t.database.db, t.app.ctx.instance, t.account.accountId, now, new Date(), 15 * 60_000);
        return claimed.claim === 'busy' ? undefined : claimed;
      });
      expect(taker.claim).toBe('resumed');
      if (late.claim === 'busy') throw new Error('unreachable');
      expect(await setFrozenTime(t.database.db, t.account.accountId, new Date(now.getTime() + 86_400_000 * 30), late.token)).toBe(false);
      await releaseClock(t.database.db, t.account.accountId, late.token);
      // Still the taker's: another advance is refused, and the account's time has not moved.
      const refused = await t.call('POST', '/v1/testclock/advance', { to: new Date(now.getTime() + 86_400_000).toISOString() });
      expect(refused.statusCode, refused.body).toBe(409);
      expect((await t.call('GET', '/v1/testclock')).json().now).toBe(now.toISOString());
      await releaseClock(t.database.db, t.account.accountId, taker.token);
      const advanced = await t.call('POST', '/v1/testclock/advance', { to: new Date(now.getTime() + 86_400_000).toISOString() });
      expect(advanced.statusCode, advanced.body).toBe(200);
    } finally {
      await frozen.stop();
    }
  });
});
