import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { emitWebhookEvent } from '../../src/outbox/webhook-events.js';
import { startReceiver } from './receiver.js';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  // The billing API's own worker (the background-tasks plugin), polling fast.
  t = await startTestApp({ app: { webhooks: { allowHttp: true, allowPrivate: true, pollMs: 50 } } });
  await t.app.ready();
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

it("the billing API's background worker delivers committed events and is watched by readiness", async () => {
  const created = await t.call('POST', '/v1/webhookEndpoints', { url: receiver.url('/bg'), eventTypes: ['payment.succeeded'] });
  expect(created.statusCode, created.body).toBe(200);
  const { secret } = created.json();
  await t.database.db.transaction().execute((trx) =>
    emitWebhookEvent(trx, {
      accountId: t.account.accountId,
      customerId: 1,
      type: 'payment.succeeded',
      data: { amount: 10 },
      now: new Date(),
    }),
  );
  // A rolled-back change has no event.
  await t.database.db
    .transaction()
    .execute(async (trx) => {
      await emitWebhookEvent(trx, {
        accountId: t.account.accountId,
        customerId: 1,
        type: 'payment.succeeded',
        data: { amount: 99 },
        now: new Date(),
      });
      throw new Error('rolled back');
    })
    .catch(() => undefined);
  const deadline = Date.now() + 60_000; // a wait, not a timing: a busy machine is slow
  while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  await new Promise((r) => setTimeout(r, 200));
  expect(receiver.received).toHaveLength(1);
  const event = new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers) as { type: string; data: unknown };
  expect(event).toMatchObject({ type: 'payment.succeeded', data: { amount: 10 } });

  const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.json().checks.backgroundTasks['webhook deliveries']).toBe('running');
});
