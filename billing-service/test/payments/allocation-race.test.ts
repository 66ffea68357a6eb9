import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { InstanceLiveness } from '../../src/db/instance-liveness.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import type { PaymentGateway } from '../../src/gateway/payment-gateway.js';
import { SandboxGateway } from '../../src/gateway/sandbox-gateway.js';
import { cardBody, customerWithInvoice } from '../helpers/api-fixtures.js';
import { BASE_URL, basicAuth, errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 24, item 1: payments that name an invoice (paymentAllocations) are checked and reserved under
 * the customer's lock before the card is charged, so concurrent ones on several instances cannot all
 * pass; a request that cannot be honoured is refused before any money moves.
 */

/** Instances judge another dead 2 s after its last heartbeat (the default is 10 s). */
const LIVENESS = { heartbeatMs: 100, staleAfterMs: 2_000 };

let t: TestApp;
/** A second instance on the same database (its own identity in claims, its own sandbox object). */
let other: FastifyInstance;
/** Instances built by one test with a gateway of their own, closed at the end. */
const extraApps: FastifyInstance[] = [];
beforeAll(async () => {
  t = await startTestApp({ app: { bulkWorker: false, webhookWorker: false, liveness: LIVENESS } });
  other = await t.buildAnotherApp();
});
afterAll(async () => {
  for (const app of extraApps) await app.close();
  await t?.close();
});

/** Another instance on the same database whose card charges go through `gateway`. */
async function instanceWith(gateway: PaymentGateway, instance?: InstanceLiveness): Promise<FastifyInstance> {
  const app = await buildApp({
    db: t.database.db,
    catalog: t.catalog,
    rateLimitStore: new MemoryRateLimitStore(),
    publicBaseUrl: BASE_URL,
    gateway,
    bulkWorker: false,
    webhookWorker: false,
    refundSettlement: false,
    liveness: LIVENESS,
    ...(instance ? { instance } : {}),
  });
  extraApps.push(app);
  await app.ready();
  return app;
}

/** The sandbox, whose charges wait until `open()` once it is `hold()`-ing (a slow processor). */
class GatedSandbox extends SandboxGateway {
  private gate: Promise<void> | undefined;
  private opener: (() => void) | undefined;
  hold() {
    this.gate = new Promise((resolve) => (this.opener = resolve));
  }
  open() {
    this.opener?.();
    this.gate = undefined;
  }
  override async charge(request: Parameters<SandboxGateway['charge']>[0]) {
    await this.gate;
    return super.charge(request);
  }
}

/** The sandbox whose next charge goes through and then loses its answer (a connection reset). */
class AnswerLosingSandbox extends SandboxGateway {
  loseNextAnswer = false;
  override async charge(request: Parameters<SandboxGateway['charge']>[0]) {
    const outcome = await super.charge(request);
    if (this.loseNextAnswer) {
      this.loseNextAnswer = false;
      throw new Error('connection reset after the charge');
    }
    return outcome;
  }
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

function reservationsOf(customerId: number) {
  return t.database.db.selectFrom('allocationReservations').selectAll().where('customerId', '=', customerId).execute();
}

function post(app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

async function addCard(customerId: number, cardNumber = '4242424242424242'): Promise<number> {
  const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber }) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as number;
}

/** The charges the sandbox made under the keys `acct_<account>:<prefix>…`. */
async function chargesUnder(prefix: string) {
  return t.database.db
    .selectFrom('sandboxGatewayOperations')
    .selectAll()
    .where('kind', '=', 'charge')
    .where('idempotencyKey', 'like', `acct_${t.account.accountId}:${prefix}%`)
    .execute();
}

async function paymentsOf(customerId: number) {
  return (await t.call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<{
    status: string;
    amount: number;
    unallocatedAmount: number;
    invoiceAllocations: Array<{ invoiceId: number; amount: number }>;
  }>;
}

describe('concurrent payments naming one invoice', () => {
  it.each(['CreditCard', 'Check'])(
    'six at once by %s on two instances: one 200, five 400 on the allocation, one charge at most',
    async (method) => {
      const { customerId, invoiceId, total } = await customerWithInvoice(t);
      const cardId = method === 'CreditCard' ? await addCard(customerId) : null;
      const prefix = `race-${customerId}-`;
      const body = {
        customerId,
        amount: total,
        paymentMethod: method,
        ...(cardId ? { paymentMethodId: cardId } : {}),
        paymentAllocations: [{ invoiceId, amount: total }],
      };
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          post(i % 2 === 0 ? t.app : other, '/v1/payments', body, { 'idempotency-key': `${prefix}${i}` }),
        ),
      );

      const statuses = answers.map((r) => r.statusCode).sort();
      expect(statuses, answers.map((r) => r.body).join('\n')).toEqual([200, 400, 400, 400, 400, 400]);
      for (const refused of answers.filter((r) => r.statusCode === 400)) {
        expect(errorsOf(refused).map((e) => e.Key)).toEqual(['paymentAllocations[0].amount']);
      }
      // Money moved once: one charge at the gateway (none for a check), one payment, all of it on the invoice.
      expect(await chargesUnder(prefix)).toHaveLength(method === 'CreditCard' ? 1 : 0);
      const payments = await paymentsOf(customerId);
      expect(payments).toHaveLength(1);
      expect(payments[0]).toMatchObject({
        status: 'Succeeded',
        amount: total,
        unallocatedAmount: 0,
        invoiceAllocations: [{ invoiceId, amount: total }],
      });
      expect((await t.call('GET', `/v1/Invoices/${invoiceId}`)).json()).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
      expect((await t.call('GET', `/v1/customers/${customerId}/overview`)).json()).toMatchObject({ arBalance: 0, unallocatedPayments: 0 });
    },
  );

  it('parts of one invoice reserved side by side: those that fit pass, the rest are refused before any charge', async () => {
    const { customerId, invoiceId, total } = await customerWithInvoice(t);
    expect(total).toBe(29.99);
    const cardId = await addCard(customerId);
    const prefix = `parts-${customerId}-`;
    // Five parts of 10 against an invoice of 29.99: two fit, whatever order they arrive in.
    const body = { customerId, amount: 10, paymentMethodId: cardId, paymentAllocations: [{ invoiceId, amount: 10 }] };
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => post(i % 2 === 0 ? t.app : other, '/v1/payments', body, { 'idempotency-key': `${prefix}${i}` })),
    );
    expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([200, 200, 400, 400, 400]);
    expect(await chargesUnder(prefix)).toHaveLength(2);
    expect((await t.call('GET', `/v1/Invoices/${invoiceId}`)).json().outstandingBalance).toBe(9.99);
    expect((await paymentsOf(customerId)).map((p) => p.unallocatedAmount)).toEqual([0, 0]);
  });
});

describe('a declined card', () => {
  it('lets go of its reservation: the next valid payment of the same invoice passes', async () => {
    const { customerId, invoiceId, total } = await customerWithInvoice(t);
    const declining = await addCard(customerId, '4000000000000341');
    const good = await addCard(customerId);
    const allocation = { paymentAllocations: [{ invoiceId, amount: total }] };
    const declined = await t.call('POST', '/v1/payments', { customerId, amount: total, paymentMethodId: declining, ...allocation });
    expect(declined.statusCode, declined.body).toBe(402);
    expect(errorsOf(declined)).toContainEqual({ Key: 'declineCode', Value: 'card_declined', Code: 'card_declined' });

    const paid = await t.call('POST', '/v1/payments', { customerId, amount: total, paymentMethodId: good, ...allocation });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({
      status: 'Succeeded',
      unallocatedAmount: 0,
      invoiceAllocations: [{ invoiceId, amount: total, outstandingBalance: 0 }],
    });
    expect(await reservationsOf(customerId)).toEqual([]);
  });
});

describe('a card payment in progress', () => {
  it('holds the invoice it names, not the customer: other payments of the customer go on, none can take that invoice', async () => {
    const gateway = new GatedSandbox(t.database.db);
    const slow = await instanceWith(gateway);
    const { customerId, invoiceId, total } = await customerWithInvoice(t);
    const cardId = await addCard(customerId);
    const allocation = { paymentAllocations: [{ invoiceId, amount: total }] };
    gateway.hold();
    const inFlight = post(
      slow,
      '/v1/payments',
      { customerId, amount: total, paymentMethodId: cardId, ...allocation },
      { 'idempotency-key': `slow-${customerId}` },
    );
    await until('the reservation', async () => ((await reservationsOf(customerId)).length > 0 ? true : undefined));

    // The invoice is held: a check naming it, or a second card, is refused; the second card is never charged.
    const check = await t.call('POST', '/v1/payments', { customerId, amount: total, paymentMethod: 'Check', ...allocation });
    expect(check.statusCode, check.body).toBe(400);
    expect(errorsOf(check)).toEqual([
      {
        Key: 'paymentAllocations[0].amount',
        Value: `more than the invoice's outstanding ${total} less ${total} held for payments in progress`,
        Code: 'value_invalid',
      },
    ]);
    const second = await post(
      t.app,
      '/v1/payments',
      { customerId, amount: total, paymentMethodId: cardId, ...allocation },
      { 'idempotency-key': `second-${customerId}` },
    );
    expect(second.statusCode, second.body).toBe(400);
    expect(await chargesUnder(`second-${customerId}`)).toEqual([]);
    // The customer is not locked meanwhile: a payment that names no invoice is recorded at once.
    const deposit = await t.call('POST', '/v1/payments', { customerId, amount: 5, paymentMethod: 'Cash', autoAllocate: false });
    expect(deposit.statusCode, deposit.body).toBe(200);

    gateway.open();
    const paid = await inFlight;
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ unallocatedAmount: 0, invoiceAllocations: [{ invoiceId, amount: total, outstandingBalance: 0 }] });
    expect(await reservationsOf(customerId)).toEqual([]);
  });

  it('whose answer is lost (502) lets go: a retry under the same Idempotency-Key charges once and pays the invoice', async () => {
    const gateway = new AnswerLosingSandbox(t.database.db);
    const losing = await instanceWith(gateway);
    const { customerId, invoiceId, total } = await customerWithInvoice(t);
    const cardId = await addCard(customerId);
    const body = { customerId, amount: total, paymentMethodId: cardId, paymentAllocations: [{ invoiceId, amount: total }] };
    const key = `lost-${customerId}`;
    gateway.loseNextAnswer = true;
    const lost = await post(losing, '/v1/payments', body, { 'idempotency-key': key });
    expect(lost.statusCode, lost.body).toBe(502);
    expect(await reservationsOf(customerId)).toEqual([]);

    const retried = await post(t.app, '/v1/payments', body, { 'idempotency-key': key });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({
      unallocatedAmount: 0,
      invoiceAllocations: [{ invoiceId, amount: total, outstandingBalance: 0 }],
    });
    expect(await chargesUnder(key)).toHaveLength(1);
  });

  it('whose reservation could not be let go (the database away at that moment): its retry is not refused by it, and it lapses at its held_until', async () => {
    const { customerId, invoiceId, total } = await customerWithInvoice(t);
    const cardId = await addCard(customerId);
    const allocation = { paymentAllocations: [{ invoiceId, amount: total }] };
    const entry = await t.database.db
      .selectFrom('ledgerEntries')
      .select('id')
      .where('invoiceId', '=', invoiceId)
      .where('entryType', '=', 'invoice')
      .executeTakeFirstOrThrow();
    const key = `stuck-${customerId}`;
    // What a charge whose release failed leaves behind, held by this live instance for an hour.
    await t.database.db
      .insertInto('allocationReservations')
      .values({
        accountId: t.account.accountId,
        customerId,
        chargeKey: `acct_${t.account.accountId}:${key}`,
        invoiceEntryId: entry.id,
        amount: String(total),
        heldBy: t.app.ctx.instance.id,
        heldUntil: new Date(Date.now() + 3_600_000),
      })
      .execute();
    const otherPayment = await t.call('POST', '/v1/payments', { customerId, amount: total, paymentMethod: 'Check', ...allocation });
    expect(otherPayment.statusCode, otherPayment.body).toBe(400);
    const retried = await post(
      t.app,
      '/v1/payments',
      { customerId, amount: total, paymentMethodId: cardId, ...allocation },
      { 'idempotency-key': key },
    );
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({
      unallocatedAmount: 0,
      invoiceAllocations: [{ invoiceId, amount: total, outstandingBalance: 0 }],
    });
    expect(await reservationsOf(customerId)).toEqual([]);

    // Past its held_until, a live holder's reservation holds nothing.
    const second = await customerWithInvoice(t);
    const secondEntry = await t.database.db
      .selectFrom('ledgerEntries')
      .select('id')
      .where('invoiceId', '=', second.invoiceId)
      .where('entryType', '=', 'invoice')
      .executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('allocationReservations')
      .values({
        accountId: t.account.accountId,
        customerId: second.customerId,
        chargeKey: `acct_${t.account.accountId}:lapsed-${second.customerId}`,
        invoiceEntryId: secondEntry.id,
        amount: String(second.total),
        heldBy: t.app.ctx.instance.id,
        heldUntil: new Date(Date.now() - 3_600_000),
      })
      .execute();
    const paid = await t.call('POST', '/v1/payments', {
      customerId: second.customerId,
      amount: second.total,
      paymentMethod: 'Check',
      paymentAllocations: [{ invoiceId: second.invoiceId, amount: second.total }],
    });
    expect(paid.statusCode, paid.body).toBe(200);
  });

  it('on an instance that died: its reservation stops holding the invoice once its heartbeat is stale', async () => {
    // The dying instance beats once at its start and when told; its charges never answer (killed mid-charge).
    const dyingInstance = new InstanceLiveness(t.database.db, 'killed', { heartbeatMs: 3_600_000, staleAfterMs: LIVENESS.staleAfterMs });
    const sandbox = new SandboxGateway(t.database.db);
    const hanging: PaymentGateway = {
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
    const dying = await instanceWith(hanging, dyingInstance);
    const { customerId, invoiceId, total } = await customerWithInvoice(t);
    const cardId = await addCard(customerId);
    const allocation = { paymentAllocations: [{ invoiceId, amount: total }] };
    void post(dying, '/v1/payments', { customerId, amount: total, paymentMethodId: cardId, ...allocation });
    const [reservation] = await until('the reservation', async () => {
      const rows = await reservationsOf(customerId);
      return rows.length > 0 ? rows : undefined;
    });
    expect(reservation).toMatchObject({ heldBy: dyingInstance.id, amount: '29.99' });

    // While its holder lives, the invoice is held.
    await dyingInstance.beat();
    const held = await t.call('POST', '/v1/payments', { customerId, amount: total, paymentMethod: 'Check', ...allocation });
    expect(held.statusCode, held.body).toBe(400);

    // Killed: its heartbeat stops (here: made old at once). Once the live instance may judge others, the invoice is free.
    await t.database.db
      .updateTable('serviceInstances')
      .set({ heartbeatAt: new Date(Date.now() - 3_600_000) })
      .where('id', '=', dyingInstance.id)
      .execute();
    await until('the live instance to judge others', async () => (t.app.ctx.instance.mayJudgeOthers ? true : undefined));
    const paid = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 20,
      paymentMethod: 'Check',
      paymentAllocations: [{ invoiceId, amount: 20 }],
    });
    expect(paid.statusCode, paid.body).toBe(200);
    // The customer's next reservation clears the dead one away.
    const rest = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 9.99,
      paymentMethodId: cardId,
      paymentAllocations: [{ invoiceId, amount: 9.99 }],
    });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ unallocatedAmount: 0, invoiceAllocations: [{ invoiceId, amount: 9.99, outstandingBalance: 0 }] });
    expect(await reservationsOf(customerId)).toEqual([]);
  });
});
