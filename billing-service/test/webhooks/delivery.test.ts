import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { WebhookDeliveryWorker, type WebhookWorkerOptions } from '../../src/webhooks/delivery-worker.js';
import type { AppContext } from '../../src/app-context.js';
import { endpointDisabledEmail } from '../../src/webhooks/disabled-notice.js';
import { emitWebhookEvent, type WebhookEventType } from '../../src/outbox/webhook-events.js';
import { systemResolve } from '../../src/outbox/url-safety.js';
import { startReceiver, type ReceivedWebhook } from './receiver.js';

/** `rebind.test` is no real name: only this resolver knows it (as 127.0.0.1). */
const resolve = async (host: string) => (host === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 as const }] : systemResolve(host));

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await startTestApp({ app: { webhooks: { allowHttp: true, allowPrivate: true, resolve }, webhookWorker: false } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
afterEach(async () => {
  // Each test's endpoints end with it, their waiting deliveries given up: later runs do not send them.
  await t.database.db.updateTable('webhookEndpoints').set({ deletedAt: new Date() }).where('deletedAt', 'is', null).execute();
  await t.database.db.updateTable('webhookDeliveries').set({ status: 'Failed' }).where('status', '=', 'Pending').execute();
  receiver.received.length = 0;
  receiver.state.respond = () => 200;
});

/** A worker of the test's own, driven by calling runDue with chosen times (no timer). */
function worker(options: WebhookWorkerOptions = {}) {
  return new WebhookDeliveryWorker(
    t.database.db,
    { allowHttp: true, allowPrivate: true, resolve, random: () => 0.5, timeoutMs: 2_000, ...options },
    t.app.log,
  );
}

async function endpoint(account: TestAccount, body: Record<string, unknown>) {
  const response = await t.call('POST', '/v1/webhookEndpoints', body, { as: account });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id: number; secret: string; url: string };
}

async function emit(account: TestAccount, customerId: number | null, type: WebhookEventType, data: unknown = { n: 1 }) {
  await t.database.db
    .transaction()
    .execute((trx) => emitWebhookEvent(trx, { accountId: account.accountId, customerId, type, data, now: new Date() }));
}

/** The event carried by a request, its signature checked with the endpoint's secret. */
function verified(request: ReceivedWebhook, secret: string) {
  const payload = new Webhook(secret).verify(request.body, request.headers) as {
    id: string;
    type: string;
    timestamp: string;
    accountId: number;
    data: any;
  };
  expect(request.headers['webhook-id']).toBe(payload.id);
  expect(request.headers['content-type']).toBe('application/json');
  return payload;
}

const seconds = (base: Date, s: number) => new Date(base.getTime() + s * 1000);

describe('webhook delivery', () => {
  it('POSTs each subscribed event, signed (Standard Webhooks), and records the attempt', async () => {
    const account = await t.newAccount();
    const all = await endpoint(account, { url: receiver.url('/all'), eventTypes: ['*'] });
    const paid = await endpoint(account, { url: receiver.url('/paid'), eventTypes: ['invoice.paid'] });
    await emit(account, 7, 'customer.created', { id: 7, firstName: 'Ada' });
    await emit(account, null, 'invoice.paid', { id: 3 });

    expect(await worker().runDue(seconds(new Date(), 1))).toBe(3);
    const toAll = receiver.received.filter((r) => r.path === '/all').map((r) => verified(r, all.secret));
    const toPaid = receiver.received.filter((r) => r.path === '/paid').map((r) => verified(r, paid.secret));
    expect(toAll.map((e) => e.type).sort()).toEqual(['customer.created', 'invoice.paid']);
    expect(toPaid.map((e) => e.type)).toEqual(['invoice.paid']);
    const created = toAll.find((e) => e.type === 'customer.created')!;
    expect(created).toMatchObject({ accountId: account.accountId, data: { id: 7, firstName: 'Ada' } });
    expect(created.id).toMatch(/^evt_/);
    expect(Date.parse(created.timestamp)).not.toBeNaN();
    // The same event to two endpoints has one id; another endpoint's secret does not verify it.
    expect(toPaid[0]!.id).toBe(toAll.find((e) => e.type === 'invoice.paid')!.id);
    expect(() =>
      new Webhook(paid.secret).verify(
        receiver.received.find((r) => r.path === '/all')!.body,
        receiver.received.find((r) => r.path === '/all')!.headers,
      ),
    ).toThrow();

    const attempts = await t.call('GET', `/v1/webhookEndpoints/${all.id}/deliveries`, undefined, { as: account });
    expect(attempts.statusCode).toBe(200);
    expect(attempts.json()).toHaveLength(2);
    for (const a of attempts.json()) {
      expect(a).toMatchObject({ httpStatus: 200, error: null, deliveryStatus: 'Succeeded' });
      expect(a.eventId).toMatch(/^evt_/);
      expect(typeof a.durationMs).toBe('number');
      const delivery = await t.call('GET', a.deliveryUri.replace('https://billing.test', ''), undefined, { as: account });
      expect(delivery.json()).toMatchObject({
        id: a.deliveryId,
        status: 'Succeeded',
        attempts: 1,
        eventId: a.eventId,
        lastHttpStatus: 200,
      });
    }
    const filtered = await t.call('GET', `/v1/webhookEndpoints/${all.id}/deliveries?query=EventType:invoice.paid`, undefined, {
      as: account,
    });
    expect(filtered.json().map((a: { eventType: string }) => a.eventType)).toEqual(['invoice.paid']);
    // Nothing is sent twice.
    receiver.received.length = 0;
    expect(await worker().runDue(seconds(new Date(), 3600))).toBe(0);
    expect(receiver.received).toEqual([]);
  });

  it('retries a failing receiver; once it recovers it has every event exactly once, in order per customer', async () => {
    const account = await t.newAccount();
    const hook = await endpoint(account, { url: receiver.url('/flaky'), eventTypes: ['*'] });
    let recovered = false;
    receiver.state.respond = () => (recovered ? 204 : 500);
    for (const n of [1, 2, 3]) await emit(account, 100, 'customer.activated', { customer: 'A', n });
    await emit(account, 200, 'customer.activated', { customer: 'B', n: 1 });
    await emit(account, null, 'bulkJob.completed', { n: 1 });
    const w = worker();
    const t0 = seconds(new Date(), 1);

    // A's first event blocks A's others; B's and the customerless one go independently.
    expect(await w.runDue(t0)).toBe(3);
    const sent = () => receiver.received.map((r) => verified(r, hook.secret).data);
    expect(sent()).toEqual(expect.arrayContaining([{ customer: 'A', n: 1 }, { customer: 'B', n: 1 }, { n: 1 }]));
    expect(sent()).toHaveLength(3);
    // Not due yet (first retry after 5 s): nothing.
    expect(await w.runDue(seconds(t0, 2))).toBe(0);
    // An event for A arriving meanwhile waits behind A's first.
    await emit(account, 100, 'customer.activated', { customer: 'A', n: 4 });
    expect(await w.runDue(seconds(t0, 6))).toBe(3);
    expect(
      receiver.received.filter((r) => verified(r, hook.secret).data.customer === 'A').map((r) => verified(r, hook.secret).data.n),
    ).toEqual([1, 1]);
    // Second retry after 5 minutes; now the receiver works.
    recovered = true;
    expect(await w.runDue(seconds(t0, 6 + 299))).toBe(0);
    expect(await w.runDue(seconds(t0, 6 + 301))).toBe(6);

    const accepted = receiver.received.filter((r) => r.status < 300).map((r) => verified(r, hook.secret));
    const unique = new Map(receiver.received.map((r) => [r.headers['webhook-id'], verified(r, hook.secret)]));
    // Deduplicated by webhook-id: each event once; accepted (2xx): each exactly once.
    expect(unique.size).toBe(6);
    expect(accepted).toHaveLength(6);
    expect(new Set(accepted.map((e) => e.id)).size).toBe(6);
    // Per customer, in the order the events happened, across the retries.
    const firstSeen = [...unique.values()];
    expect(firstSeen.filter((e) => e.data.customer === 'A').map((e) => e.data.n)).toEqual([1, 2, 3, 4]);
    expect(accepted.filter((e) => e.data.customer === 'A').map((e) => e.data.n)).toEqual([1, 2, 3, 4]);
    // Retries carry the same id and are signed afresh.
    const retriedA1 = receiver.received.filter(
      (r) => verified(r, hook.secret).data.customer === 'A' && verified(r, hook.secret).data.n === 1,
    );
    expect(retriedA1.map((r) => r.status)).toEqual([500, 500, 204]);
    expect(new Set(retriedA1.map((r) => r.headers['webhook-id'])).size).toBe(1);

    const attempts = (await t.call('GET', `/v1/webhookEndpoints/${hook.id}/deliveries?pageSize=100`, undefined, { as: account })).json();
    expect(attempts).toHaveLength(receiver.received.length);
    expect(attempts.filter((a: { httpStatus: number }) => a.httpStatus === 500)).toHaveLength(6);
    expect(attempts.filter((a: { httpStatus: number; error: string | null }) => a.httpStatus === 500 && a.error === null)).toHaveLength(6);
    // A success ends the failure clock.
    expect((await t.call('GET', `/v1/webhookEndpoints/${hook.id}`, undefined, { as: account })).json().failingSinceTimestamp).toBeNull();
  });

  it("sends a customer's next event in the same run when the previous one is recorded while a claim is being looked for", async () => {
    // The interleaving of the race fixed on 2026-11-28: the run's second claim reads the outbox while the first
    // event is still in flight (so the customer's next event is not due yet) and answers only once that send is
    // recorded; the run must look again before it ends, not leave the next event to the next poll.
    const account = await t.newAccount();
    const hook = await endpoint(account, { url: receiver.url('/ordered'), eventTypes: ['*'] });
    await emit(account, 42, 'invoice.posted', { n: 1 });
    await emit(account, 42, 'invoice.paid', { n: 2 });
    let secondClaimDone: () => void = () => undefined;
    const secondClaimRead = new Promise<void>((resolve) => (secondClaimDone = resolve));
    // The first event is answered only after the second claim has read the outbox (and found nothing due).
    receiver.state.respond = ({ body }) => (JSON.parse(body).data.n === 1 ? secondClaimRead.then(() => 200) : 200);
    const firstRecorded = async () => {
      for (;;) {
        const first = await t.database.db
          .selectFrom('webhookDeliveries')
          .select('status')
          .where('endpointId', '=', hook.id)
          .orderBy('id')
          .executeTakeFirst();
        if (first?.status === 'Succeeded') break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // what the worker does after the commit (a few promise steps) runs before the claim answers
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    let claims = 0;
    // a proxy's methods run on the real object (Kysely's classes keep private fields)
    const bound = (target: object, key: string | symbol) => {
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    };
    const watched = new Proxy(t.database.db, {
      get(db, property) {
        if (property !== 'transaction') return bound(db, property);
        return () => {
          const builder = db.transaction();
          return new Proxy(builder, {
            get(b, p) {
              if (p !== 'execute') return bound(b, p);
              return async (callback: Parameters<typeof builder.execute>[0]) => {
                const result = await b.execute(callback);
                // a claim answers a list; the run's second one is held until the first send is recorded
                if (Array.isArray(result) && ++claims === 2) {
                  expect(result).toEqual([]);
                  secondClaimDone();
                  await firstRecorded();
                }
                return result;
              };
            },
          });
        };
      },
    });
    const w = new WebhookDeliveryWorker(
      watched,
      { allowHttp: true, allowPrivate: true, resolve, random: () => 0.5, timeoutMs: 2_000 },
      t.app.log,
    );
    expect(await w.runDue()).toBe(2);
    expect(receiver.received.map((r) => verified(r, hook.secret).data.n)).toEqual([1, 2]);
  });

  it('shares the outbox between instances: two workers at once send each event once, in order per customer', async () => {
    const account = await t.newAccount();
    const hook = await endpoint(account, { url: receiver.url('/shared'), eventTypes: ['*'] });
    for (let n = 1; n <= 6; n++) await emit(account, 300, 'invoice.posted', { customer: 'C', n });
    for (let n = 1; n <= 12; n++) await emit(account, null, 'bulkJob.completed', { n });
    const now = seconds(new Date(), 1);
    const [a, b] = await Promise.all([worker({ concurrency: 3 }).runDue(now), worker({ concurrency: 3 }).runDue(now)]);
    expect(a + b).toBe(18);
    const events = receiver.received.map((r) => verified(r, hook.secret));
    expect(new Set(events.map((e) => e.id)).size).toBe(18);
    expect(events.filter((e) => e.data.customer === 'C').map((e) => e.data.n)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a slow endpoint delays only itself: another tenant's event is delivered while the slow backlog waits", async () => {
    const slowTenant = await t.newAccount();
    const otherTenant = await t.newAccount();
    const slow = await endpoint(slowTenant, { url: receiver.url('/slow'), eventTypes: ['*'] });
    const other = await endpoint(otherTenant, { url: receiver.url('/other'), eventTypes: ['*'] });
    let release!: () => void;
    const released = new Promise<number>((resolve) => (release = () => resolve(200)));
    receiver.state.respond = ({ path }) => (path === '/slow' ? released : 200);
    // The slow tenant's backlog is older than the other tenant's event, and larger than the worker's slots.
    for (let n = 1; n <= 12; n++) await emit(slowTenant, null, 'bulkJob.completed', { n });
    await emit(otherTenant, null, 'bulkJob.completed', { n: 'other' });

    const run = worker({ timeoutMs: 60_000, pollMs: 20, concurrency: 10, perEndpoint: 2 }).runDue(seconds(new Date(), 1));
    const deadline = Date.now() + 60_000; // a wait, not a timing: a busy machine is slow
    while (!receiver.received.some((r) => r.path === '/other') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const delivered = receiver.received.filter((r) => r.path === '/other').map((r) => verified(r, other.secret));
    const slowSoFar = {
      arrived: receiver.arrived.filter((p) => p === '/slow').length,
      answered: receiver.received.filter((r) => r.path === '/slow').length,
    };
    release();
    const attempts = await run;

    expect(delivered.map((e) => e.data.n)).toEqual(['other']);
    // Meanwhile the slow endpoint had at most two requests open and none answered: its backlog was not through.
    expect(slowSoFar.answered).toBe(0);
    expect(slowSoFar.arrived).toBeGreaterThan(0);
    expect(slowSoFar.arrived).toBeLessThanOrEqual(2);
    expect(attempts).toBe(13);
    const slowEvents = receiver.received.filter((r) => r.path === '/slow').map((r) => verified(r, slow.secret));
    expect(slowEvents.map((e) => e.data.n).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('disables an endpoint after a day of failures without a success', async () => {
    const account = await t.newAccount();
    const hook = await endpoint(account, { url: receiver.url('/down'), eventTypes: ['*'] });
    receiver.state.respond = () => 503;
    await emit(account, 1, 'invoice.posted');
    // With e-mail on and the catalogue's account.email, the account is told by e-mail (through the outbox).
    const ctx = t.app.ctx as AppContext;
    const mailing = {
      ...ctx,
      notifier: { enabled: true },
      catalog: { ...ctx.catalog, account: { name: 'Shop', email: 'ops@shop.test' } },
    } as unknown as AppContext;
    const w = worker({ onEndpointDisabled: endpointDisabledEmail(mailing) });
    const t0 = seconds(new Date(), 1);
    await w.runDue(t0);
    const failing = (await t.call('GET', `/v1/webhookEndpoints/${hook.id}`, undefined, { as: account })).json();
    expect(failing).toMatchObject({ status: 'Enabled', failingSinceTimestamp: t0.toISOString() });
    await w.runDue(seconds(t0, 23 * 3600));
    expect((await t.call('GET', `/v1/webhookEndpoints/${hook.id}`, undefined, { as: account })).json().status).toBe('Enabled');
    await w.runDue(seconds(t0, 24 * 3600 + 10));
    const disabled = (await t.call('GET', `/v1/webhookEndpoints/${hook.id}`, undefined, { as: account })).json();
    expect(disabled.status).toBe('Disabled');
    const emails = await t.database.db.selectFrom('emailOutbox').selectAll().where('accountId', '=', account.accountId).execute();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({
      customerId: null,
      toAddress: 'ops@shop.test',
      emailType: 'WebhookEndpointDisabled',
      status: 'Pending',
    });
    expect(emails[0]!.subject).toBe(`Shop: webhook endpoint ${hook.id} was disabled`);
    expect(emails[0]!.body).toContain(hook.url);

    // A disabled endpoint gets no new deliveries and its waiting one is not attempted.
    const before = receiver.received.length;
    await emit(account, 1, 'invoice.paid');
    await w.runDue(seconds(t0, 40 * 3600));
    expect(receiver.received.length).toBe(before);
    // Enabled again (the receiver fixed): the waiting delivery goes, the failure clock restarts.
    receiver.state.respond = () => 200;
    const enabled = await t.call(
      'PUT',
      `/v1/webhookEndpoints/${hook.id}`,
      { url: hook.url, eventTypes: ['*'], status: 'Enabled' },
      { as: account },
    );
    expect(enabled.json()).toMatchObject({ status: 'Enabled', failingSinceTimestamp: null });
    await w.runDue(seconds(t0, 41 * 3600));
    expect(receiver.received.slice(before).map((r) => verified(r, hook.secret).type)).toEqual(['invoice.posted']);
  });

  it('disables without an e-mail when e-mail is off or the account has no address', async () => {
    const account = await t.newAccount();
    const hook = await endpoint(account, { url: receiver.url('/down2'), eventTypes: ['*'] });
    receiver.state.respond = () => 500;
    await emit(account, null, 'invoice.posted');
    const ctx = t.app.ctx as AppContext;
    const w = worker({ onEndpointDisabled: endpointDisabledEmail(ctx) });
    const t0 = seconds(new Date(), 1);
    await w.runDue(t0);
    await w.runDue(seconds(t0, 25 * 3600));
    expect((await t.call('GET', `/v1/webhookEndpoints/${hook.id}`, undefined, { as: account })).json().status).toBe('Disabled');
    expect(await t.database.db.selectFrom('emailOutbox').selectAll().where('accountId', '=', account.accountId).execute()).toEqual([]);
  });

  it('gives up after the last retry; POST /v1/webhookDeliveries/{id}/retry sends it again, now', async () => {
    const account = await t.newAccount();
    const hook = await endpoint(account, { url: receiver.url('/gone'), eventTypes: ['*'] });
    receiver.state.respond = () => 410;
    await emit(account, 5, 'payment.failed', { n: 1 });
    await emit(account, 5, 'payment.failed', { n: 2 });
    const w = worker({ retryDelaysMs: [1_000] });
    const t0 = seconds(new Date(), 1);
    await w.runDue(t0);
    // The second attempt fails too: Failed; the next event of the customer is then attempted.
    await w.runDue(seconds(t0, 2));
    const attempts = (
      await t.call('GET', `/v1/webhookEndpoints/${hook.id}/deliveries?sortExpression=Id&sortOrder=Ascending`, undefined, { as: account })
    ).json();
    expect(attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([410, 410, 410]);
    const deliveryId = attempts[0].deliveryId as number;
    const failed = (await t.call('GET', `/v1/webhookDeliveries/${deliveryId}`, undefined, { as: account })).json();
    expect(failed).toMatchObject({ status: 'Failed', attempts: 2, lastHttpStatus: 410, nextAttemptTimestamp: null });

    const other = await t.newAccount();
    expect((await t.call('POST', `/v1/webhookDeliveries/${deliveryId}/retry`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/webhookDeliveries/${deliveryId}`, undefined, { as: other })).statusCode).toBe(404);

    receiver.state.respond = () => 200;
    const retried = await t.call('POST', `/v1/webhookDeliveries/${deliveryId}/retry`, undefined, { as: account });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ id: deliveryId, status: 'Pending', attempts: 0 });
    expect((await t.call('POST', `/v1/webhookDeliveries/${deliveryId}/retry`, undefined, { as: account })).statusCode).toBe(409);
    await w.runDue(seconds(new Date(), 1));
    expect((await t.call('GET', `/v1/webhookDeliveries/${deliveryId}`, undefined, { as: account })).json()).toMatchObject({
      status: 'Succeeded',
      lastHttpStatus: 200,
    });
    expect((await t.call('POST', `/v1/webhookDeliveries/${deliveryId}/retry`, undefined, { as: account })).statusCode).toBe(409);
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select('action')
      .where('entityType', '=', 'WebhookDelivery')
      .where('entityId', '=', deliveryId)
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('refuses private addresses again at delivery, after resolving, and connects only to the checked address', async () => {
    const account = await t.newAccount();
    const byName = await endpoint(account, { url: `http://rebind.test:${receiver.port}/rebind`, eventTypes: ['*'] });
    await emit(account, null, 'customer.created');
    const strict = worker({ allowPrivate: false });
    await strict.runDue(seconds(new Date(), 1));
    expect(receiver.received).toEqual([]);
    const [refused] = (await t.call('GET', `/v1/webhookEndpoints/${byName.id}/deliveries`, undefined, { as: account })).json();
    expect(refused).toMatchObject({ httpStatus: null, deliveryStatus: 'Pending' });
    expect(refused.error).toMatch(/^refused: host rebind\.test does not resolve to a public address/);

    // Allowed, the name (unknown to real DNS) is reached through the address the check saw.
    await worker().runDue(seconds(new Date(), 60));
    expect(receiver.received.map((r) => r.path)).toEqual(['/rebind']);
    expect(receiver.received[0]!.headers.host).toBe(`rebind.test:${receiver.port}`);

    // An IP literal is checked too; http refused at delivery when the flag is off.
    receiver.received.length = 0;
    const literal = await endpoint(account, { url: receiver.url('/literal'), eventTypes: ['customer.held'] });
    await emit(account, null, 'customer.held');
    await worker({ allowPrivate: false }).runDue(seconds(new Date(), 1));
    await worker({ allowHttp: false }).runDue(seconds(new Date(), 10));
    expect(receiver.received).toEqual([]);
    const errors = (
      await t.call('GET', `/v1/webhookEndpoints/${literal.id}/deliveries?sortExpression=Id&sortOrder=Ascending`, undefined, { as: account })
    )
      .json()
      .map((a: { error: string }) => a.error);
    expect(errors).toEqual([expect.stringMatching(/refused: .*loopback/), expect.stringMatching(/refused: must be an https URL/)]);
  });

  it('counts a redirect and a timeout as failures', async () => {
    const account = await t.newAccount();
    const moved = await endpoint(account, { url: receiver.url('/moved'), eventTypes: ['customer.held'] });
    const slow = await endpoint(account, { url: receiver.url('/slow'), eventTypes: ['customer.unheld'] });
    receiver.state.respond = ({ path }) => (path === '/moved' ? 301 : path === '/slow' ? 'hang' : 200);
    await emit(account, null, 'customer.held');
    await emit(account, null, 'customer.unheld');
    await worker({ timeoutMs: 300 }).runDue(seconds(new Date(), 1));
    const [redirect] = (await t.call('GET', `/v1/webhookEndpoints/${moved.id}/deliveries`, undefined, { as: account })).json();
    expect(redirect).toMatchObject({ httpStatus: 301, error: 'redirect not followed', deliveryStatus: 'Pending' });
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toEqual([]);
    const [timedOut] = (await t.call('GET', `/v1/webhookEndpoints/${slow.id}/deliveries`, undefined, { as: account })).json();
    expect(timedOut).toMatchObject({ httpStatus: null, error: 'timed out after 300 ms' });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(250);
    await t.call('DELETE', `/v1/webhookEndpoints/${slow.id}`, undefined, { as: account });
    await t.call('DELETE', `/v1/webhookEndpoints/${moved.id}`, undefined, { as: account });
  });
});
