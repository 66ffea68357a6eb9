import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SandboxGateway } from '@renew/billing-service/payments';
import { buildApp } from '../../billing-service/src/app.js';
import { MemoryRateLimitStore } from '../../billing-service/src/http/rate-limit.js';
import { BASE_URL, basicAuth } from '../../billing-service/test/helpers/test-app.js';
import { startReceiver } from '../../billing-service/test/webhooks/receiver.js';
import { errorsOf, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/** Charge once (issue 22) on the capture host: one capture token, one charge; a charge neither stored nor refunded is never silent. */

/** The sandbox, counting the charges that reach it. */
class CountingGateway extends SandboxGateway {
  chargesMade = 0;
  override async charge(request: Parameters<SandboxGateway['charge']>[0]) {
    this.chargesMade += 1;
    return super.charge(request);
  }
}

let t: CaptureTest;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await startCaptureTest();
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('a capture token with a first payment', () => {
  it('is charged once when 8 captures race with it; the others get the used-token 400', async () => {
    const customerId = await t.customer();
    const captureToken = await t.captureToken(customerId);
    const gateway = new CountingGateway(t.billing.database.db);
    const app = await t.build({ gateway });
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.post(t.params(customerId, { captureToken, paymentCollectOptions: { collectionAmount: '15.00' } }), { app }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses, responses.map((r) => r.body).join('\n')).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    for (const refused of responses.filter((r) => r.statusCode === 400)) expect(errorsOf(refused)[0]!.Key).toBe('captureToken');
    expect(gateway.chargesMade).toBe(1);
    const payments = await t.billing.call('GET', `/v1/customers/${customerId}/payments`);
    expect(payments.json()).toHaveLength(1);
    const refunds = await t.billing.database.db
      .selectFrom('sandboxGatewayOperations')
      .select('idempotencyKey')
      .where('kind', '=', 'refund')
      .execute();
    expect(refunds.filter((r) => r.idempotencyKey.includes('compensate_'))).toEqual([]);
  });

  it('gives the token back when the charge is declined, so the shopper can try another card', async () => {
    const customerId = await t.customer();
    const captureToken = await t.captureToken(customerId);
    const declined = await t.post(
      t.params(customerId, { captureToken, cardNumber: '4000000000000341', paymentCollectOptions: { collectionAmount: '15.00' } }),
    );
    expect(declined.statusCode, declined.body).toBe(400);
    expect(errorsOf(declined).find((e) => e.Key === 'declineCode')?.Value).toBe('card_declined');
    const paid = await t.post(t.params(customerId, { captureToken, paymentCollectOptions: { collectionAmount: '15.00' } }));
    expect(paid.statusCode, paid.body).toBe(200);
  });
});

describe('a charge that can be neither stored nor refunded', () => {
  /** Charges succeed, then the customer leaves the account before the card and payment are stored. */
  class VanishingCustomerGateway extends SandboxGateway {
    constructor(
      private readonly customers: CaptureTest['billing']['database']['db'],
      private readonly customerId: number,
      private readonly elsewhere: number,
    ) {
      super(customers);
    }
    override async charge(request: Parameters<SandboxGateway['charge']>[0]) {
      const outcome = await super.charge(request);
      await this.customers.updateTable('customers').set({ accountId: this.elsewhere }).where('id', '=', this.customerId).execute();
      return outcome;
    }
  }

  it('is recorded as needing attention, counted, logged at error level and announced by webhook', async () => {
    // An operator's endpoint on a local receiver: a billing API instance that allows http and private addresses registers it.
    const billing = await buildApp({
      db: t.billing.database.db,
      catalog: t.billing.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      webhooks: { allowHttp: true, allowPrivate: true },
      webhookWorker: false,
    });
    const hook = await billing.inject({
      method: 'POST',
      url: '/v1/webhookEndpoints',
      headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: receiver.url('/operator'), eventTypes: ['payment.needs_attention'] }),
    });
    await billing.close();
    expect(hook.statusCode, hook.body).toBe(200);
    const customerId = await t.customer();
    const logged: Array<Record<string, unknown>> = [];
    const logger = { level: 'error', stream: { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) } };
    const gateway = new VanishingCustomerGateway(t.billing.database.db, customerId, (await t.billing.newAccount()).accountId);
    const app = await t.build({ gateway, logger });
    // 4000 0000 0000 5126: charges succeed, every refund is refused.
    const res = await t.post(
      t.params(customerId, { cardNumber: '4000000000005126', paymentCollectOptions: { collectionAmount: '12.00' } }),
      { app },
    );
    expect(res.statusCode, res.body).toBe(400);

    const attention = await t.billing.database.db
      .selectFrom('paymentsNeedingAttention')
      .selectAll()
      .where('customerId', '=', customerId)
      .execute();
    expect(attention).toHaveLength(1);
    expect(attention[0]).toMatchObject({
      accountId: t.account.accountId,
      reason: 'compensation_failed',
      amount: '12',
      currency: 'USD',
      gatewayCode: 'refund_failed',
      resolvedAt: null,
    });
    const charged = await t.billing.database.db
      .selectFrom('sandboxGatewayOperations')
      .selectAll()
      .where('kind', '=', 'charge')
      .where('resultId', '=', attention[0]!.gatewayTransactionId)
      .execute();
    expect(charged).toHaveLength(1);

    const events = await t.billing.database.db
      .selectFrom('webhookEvents')
      .selectAll()
      .where('eventType', '=', 'payment.needs_attention')
      .execute();
    expect(events).toHaveLength(1);
    const payload = (typeof events[0]!.payload === 'string' ? JSON.parse(events[0]!.payload) : events[0]!.payload) as {
      data: Record<string, unknown>;
    };
    expect(payload.data).toMatchObject({
      id: attention[0]!.id,
      customerId,
      gatewayTransactionId: attention[0]!.gatewayTransactionId,
      amount: 12,
      currency: 'USD',
      gatewayCode: 'refund_failed',
    });

    const errorLine = logged.find((line) => line.level === 50 && String(line.msg).includes('needs attention'));
    expect(errorLine).toMatchObject({
      gatewayTransactionId: attention[0]!.gatewayTransactionId,
      amount: '12',
      needsAttentionId: attention[0]!.id,
    });
    expect(JSON.stringify(logged)).not.toContain('4000000000005126');

    const metrics = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(metrics.body).toMatch(/^renew_payments_needing_attention_total 1$/m);
  });
});

/**
 * The database as a restart leaves it for a while: every statement through this handle fails with
 * the server's "terminating connection" (57P01) while `down` is set. A statement built by Kysely
 * fails before it is sent; one compiled earlier (reusableQuery) fails on its result, which rolls
 * its transaction back, as a connection lost before COMMIT does.
 */
class DatabaseOutage implements KyselyPlugin {
  down = false;
  private refuse() {
    if (this.down) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
  }
  transformQuery(args: PluginTransformQueryArgs) {
    this.refuse();
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    this.refuse();
    return args.result;
  }
}

describe('a charge made as the database goes away', () => {
  it('is paid back, once, when the database returns (unless it was recorded after all), and the token serves the retry', async () => {
    const customerId = await t.customer();
    const outage = new DatabaseOutage();
    const db = t.billing.database.db.withPlugin(outage);
    // The sandbox keeps its operations in the same database, as in the fault test: while it is away
    // the refund fails too. The database goes away just after the charge.
    const charged: string[] = [];
    class ChargeThenOutage extends SandboxGateway {
      override async charge(request: Parameters<SandboxGateway['charge']>[0]) {
        const outcome = await super.charge(request);
        if (outcome.status === 'succeeded') charged.push(outcome.value.transactionId);
        if (charged.length === 1) outage.down = true; // the first charge only: the retry's goes through
        return outcome;
      }
    }
    const logged: Array<Record<string, unknown>> = [];
    const logger = { level: 'error', stream: { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) } };
    const app = await t.build({ db, gateway: new ChargeThenOutage(db), logger });

    const captureToken = await t.captureToken(customerId);
    const res = await t.post(t.params(customerId, { captureToken, paymentCollectOptions: { collectionAmount: '15.00' } }), { app });
    expect(res.statusCode, res.body).toBe(503);
    expect(charged).toHaveLength(1);
    const refundsOfTheCharge = () =>
      t.billing.database.db
        .selectFrom('sandboxGatewayOperations')
        .selectAll()
        .where('kind', '=', 'refund')
        .where('transactionId', '=', charged[0]!)
        .execute();
    // The failure may have hidden a commit: nothing is paid back until the database can say it was not recorded.
    expect(await refundsOfTheCharge()).toEqual([]);

    outage.down = false;
    await vi.waitFor(async () => expect(await refundsOfTheCharge()).toHaveLength(1), { timeout: 20_000, interval: 100 });
    expect(await refundsOfTheCharge()).toMatchObject([{ status: 'succeeded', amount: '15', currency: 'USD' }]);
    // Paid back, so nothing is recorded: no payment, no card, nothing for an operator.
    const payments = await t.billing.database.db.selectFrom('payments').select('id').where('customerId', '=', customerId).execute();
    expect(payments).toEqual([]);
    const attention = await t.billing.database.db
      .selectFrom('paymentsNeedingAttention')
      .select('id')
      .where('customerId', '=', customerId)
      .execute();
    expect(attention).toEqual([]);
    expect(JSON.stringify(logged)).not.toContain('4242424242424242');

    // The shop's retry with the same capture token (the 503 said: retry): the token was given back, one payment.
    const retried = await vi.waitFor(
      async () => {
        const again = await t.post(t.params(customerId, { captureToken, paymentCollectOptions: { collectionAmount: '15.00' } }), { app });
        expect(again.statusCode, again.body).toBe(200);
        return again;
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(retried.statusCode).toBe(200);
    const after = await t.billing.database.db
      .selectFrom('payments')
      .select(['amount', 'status'])
      .where('customerId', '=', customerId)
      .execute();
    expect(after).toEqual([{ amount: '15', status: 'Succeeded' }]);
  });
});
