import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { BulkPaymentWorker } from '../../src/bulk/bulk-worker.js';
import { claimRecords, finishRecord } from '../../src/bulk/repository.js';
import { collectBulkRecord } from '../../src/bulk/service.js';
import type { PaymentGateway } from '../../src/gateway/payment-gateway.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { gatewayIdempotencyKey } from '../../src/gateway/payment-gateway.js';
import { money } from '../../src/money/money.js';
import { BASE_URL, errorsOf, startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';
import { activate, cardBody, listInvoices, newCustomer, newSubscription } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function customerWithCard(cardNumber = '4242424242424242') {
  const customerId = await newCustomer(t, {});
  const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber }) });
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, paymentMethodId: res.json().id as number };
}

/** A customer with one posted, unpaid invoice of 19.99 + 10.00 setup (no tax without an address). */
async function customerOwing() {
  const customerId = await newCustomer(t, {});
  await newSubscription(t, customerId);
  expect((await activate(t, customerId)).statusCode).toBe(200);
  const [invoice] = await listInvoices(t, customerId);
  return { customerId, invoiceId: invoice!.id as number };
}

const submit = (data: unknown[], extra: Record<string, unknown> = {}) =>
  t.call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data, ...extra });
const readJob = async (id: number, view = '') => (await t.call('GET', `/v1/BulkApi/${id}${view}`)).json();

async function waitForJob(id: number, status: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const job = await readJob(id, '?view=full');
    if (job.status === status) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const paymentsOf = async (customerId: number) =>
  (await t.call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<Record<string, any>>;

describe('bulk payment jobs', () => {
  it('checks every item at submission, keeps the refused ones with their errors, and charges nothing yet', async () => {
    const good = await customerWithCard();
    const res = await submit(
      [
        { customerId: good.customerId, reference: 'INV-1', amount: 25, paymentMethod: 'CreditCard', paymentMethodId: good.paymentMethodId },
        { customerId: good.customerId, reference: 'INV-2', amount: '10.001', paymentMethod: 'Check' },
        { customerId: 987654, reference: 'INV-3', amount: 5, paymentMethod: 'Check' },
        { customerId: good.customerId, reference: 'INV-4', amount: 7.5, paymentMethod: 'Check', source: 'Manual' },
      ],
      { fileName: 'november.csv' },
    );
    expect(res.statusCode, res.body).toBe(200);
    const job = res.json();
    expect(job).toMatchObject({
      type: 'BulkPayment',
      status: 'Validated',
      totalRecords: 4,
      successfulRecords: 2,
      failedRecords: 2,
      totalProcessedRecords: 0,
      processedRecords: 0,
      failedProcessedRecords: 0,
      fileName: 'november.csv',
      completedTimestamp: null,
      accountId: t.account.accountId,
      uri: `${BASE_URL}/v1/BulkApi/${job.id}`,
    });
    expect(job.records).toBeUndefined();

    const full = await readJob(job.id, '?view=full');
    expect(full.records.map((r: { status: string }) => r.status)).toEqual(['Pending', 'Invalid', 'Invalid', 'Pending']);
    expect(full.records[1].errors).toEqual([
      { Key: 'data[1].amount', Value: 'USD amounts have at most 2 decimals', Code: 'value_invalid' },
    ]);
    expect(full.records[2].errors).toEqual([{ Key: 'data[2]', Value: 'customer with id 987654 not found', Code: 'not_found' }]);
    expect(full.records[0]).toMatchObject({ index: 0, customerId: good.customerId, amount: 25, reference: 'INV-1', paymentId: null });
    expect(await paymentsOf(good.customerId)).toEqual([]);
  });

  it('processes in the background: card and check payments, allocations as asked, a declined card recorded as failed', async () => {
    const visa = await customerWithCard();
    const declining = await customerWithCard('4000000000000341');
    const owing = await customerOwing();
    const submitted = (
      await submit([
        { customerId: visa.customerId, reference: 'R1', amount: 12.5, paymentMethod: 'CreditCard', useDefaultPaymentMethod: true },
        {
          customerId: declining.customerId,
          reference: 'R2',
          amount: 30,
          paymentMethod: 'CreditCard',
          paymentMethodId: declining.paymentMethodId,
        },
        {
          customerId: owing.customerId,
          reference: 'R3',
          amount: 20,
          paymentMethod: 'Check',
          paymentAllocations: [{ invoiceID: owing.invoiceId, amount: 20 }],
        },
      ])
    ).json();
    const processing = await t.call('POST', '/v1/BulkApi/Process/', { id: submitted.id });
    expect(processing.statusCode, processing.body).toBe(200);
    expect(['Processing', 'Completed']).toContain(processing.json().status);

    const done = await waitForJob(submitted.id, 'Completed');
    expect(done).toMatchObject({ totalRecords: 3, totalProcessedRecords: 3, processedRecords: 2, failedProcessedRecords: 1 });
    expect(done.completedTimestamp).not.toBeNull();
    expect(done.records.map((r: { status: string }) => r.status)).toEqual(['Succeeded', 'Failed', 'Succeeded']);
    expect(done.records[1].errors).toContainEqual({ Key: 'declineCode', Value: 'card_declined', Code: 'card_declined' });

    const [visaPayment] = await paymentsOf(visa.customerId);
    expect(visaPayment).toMatchObject({
      amount: 12.5,
      status: 'Succeeded',
      source: 'Import',
      reference: 'R1',
      paymentMethod: 'CreditCard',
      id: done.records[0].paymentId,
    });
    expect(await paymentsOf(declining.customerId)).toEqual([
      expect.objectContaining({ status: 'Failed', declineCode: 'card_declined', id: done.records[1].paymentId }),
    ]);
    const [checkPayment] = await paymentsOf(owing.customerId);
    expect(checkPayment!.invoiceAllocations).toEqual([
      expect.objectContaining({ invoiceId: owing.invoiceId, amount: 20, outstandingBalance: 9.99 }),
    ]);
  });

  it("processes a job once: a second Process is refused, and so are unknown and other accounts' jobs", async () => {
    const { customerId } = await customerWithCard();
    const job = (await submit([{ customerId, amount: 1, paymentMethod: 'Cash' }])).json();
    expect((await t.call('POST', '/v1/BulkApi/Process', { id: job.id })).statusCode).toBe(200);
    const again = await t.call('POST', '/v1/BulkApi/Process', { id: job.id });
    expect(again.statusCode).toBe(400);
    expect(errorsOf(again)[0]!.Value).toMatch(/only a Validated job can be processed/);
    await waitForJob(job.id, 'Completed');
    expect(await paymentsOf(customerId)).toHaveLength(1);

    expect((await t.call('POST', '/v1/BulkApi/Process', { id: 987654 })).statusCode).toBe(404);
    const other = await t.newAccount();
    expect((await t.call('GET', `/v1/BulkApi/${job.id}`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('POST', '/v1/BulkApi/Process', { id: job.id }, { as: other })).statusCode).toBe(404);
  });

  it('cancels the payments not processed yet, and a cancelled job is not processed', async () => {
    const { customerId } = await customerWithCard();
    const job = (
      await submit([
        { customerId, amount: 3, paymentMethod: 'Cash' },
        { customerId, amount: 4, paymentMethod: 'Cash' },
      ])
    ).json();
    const cancelled = await t.call('POST', `/v1/BulkApi/Cancel/${job.id}`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ status: 'Cancelled', totalProcessedRecords: 0 });
    expect((await readJob(job.id, '?view=Full')).records.map((r: { status: string }) => r.status)).toEqual(['Cancelled', 'Cancelled']);
    expect((await t.call('POST', '/v1/BulkApi/Process', { id: job.id })).statusCode).toBe(400);
    expect((await t.call('POST', `/v1/BulkApi/Cancel/${job.id}`)).statusCode).toBe(400);
    expect(await paymentsOf(customerId)).toEqual([]);
  });

  it('answers a malformed job with the field at fault', async () => {
    const wrongType = await t.call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkInvoice', data: [{}] });
    expect(wrongType.statusCode).toBe(400);
    expect(errorsOf(wrongType)).toEqual([{ Key: 'accountUploadType', Value: expect.any(String), Code: 'value_invalid' }]);
    expect(errorsOf(await t.call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data: [] }))[0]!.Key).toBe('data');
    expect((await t.call('GET', '/v1/BulkApi/abc')).statusCode).toBe(400);
    expect((await t.call('GET', '/v1/BulkApi/99999999999')).statusCode).toBe(400);
    const notObject = (await submit(['a string', null])).json();
    expect(notObject).toMatchObject({ successfulRecords: 0, failedRecords: 2 });
  });

  it('refuses jobs above the account limit and on accounts without bulk jobs', async () => {
    const small = await t.buildAnotherApp(testCatalog({ bulk: { enabled: true, maxRecords: 2 } }));
    const items = [1, 2, 3].map(() => ({ customerId: 1, amount: 1, paymentMethod: 'Cash' }));
    const tooMany = await small.inject({
      method: 'POST',
      url: '/v1/bulkPaymentSubmit',
      headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' },
      payload: { accountUploadType: 'bulkPayment', data: items },
    });
    expect(tooMany.statusCode).toBe(400);
    expect(errorsOf(tooMany)).toEqual([{ Key: 'data', Value: 'at most 2 payment items in one job', Code: 'value_invalid' }]);

    const disabled = await t.buildAnotherApp(testCatalog({ bulk: { enabled: false } }));
    const refused = await disabled.inject({
      method: 'POST',
      url: '/v1/bulkPaymentSubmit',
      headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' },
      payload: { accountUploadType: 'bulkPayment', data: items },
    });
    expect(refused.statusCode).toBe(403);
    expect(errorsOf(refused)[0]!.Value).toMatch(/not activated/);
  });

  it('never charges twice when an instance dies between the charge and its record', async () => {
    const { customerId, paymentMethodId } = await customerWithCard();
    const job = (await submit([{ customerId, amount: 9, paymentMethod: 'CreditCard', paymentMethodId }])).json();
    // This instance's worker pauses so that the instance that dies claims the record first.
    const worker = t.app.ctx.bulkWorker as BulkPaymentWorker;
    await worker.stop();
    expect((await t.call('POST', '/v1/BulkApi/Process', { id: job.id })).statusCode).toBe(200);
    // The instance that dies: it claims the record and charges the card, then vanishes.
    const [claimed] = await claimRecords(t.database.db, t.app.ctx.instance, new Date(), 60_000, 1);
    expect(claimed?.jobId).toBe(job.id);
    const method = await t.database.db
      .selectFrom('paymentMethods')
      .select('gatewayToken')
      .where('id', '=', paymentMethodId)
      .executeTakeFirstOrThrow();
    const gateway = t.app.ctx.payments.gateway;
    const charged = await gateway.charge(
      {
        token: method.gatewayToken,
        amount: money(9),
        currency: 'USD',
        idempotencyKey: gatewayIdempotencyKey(claimed!.accountId, `bulk-record-${claimed!.id}`),
        offSession: true,
      },
      AbortSignal.timeout(5_000),
    );
    expect(charged.status).toBe('succeeded');
    // The running instance leaves a freshly claimed record alone...
    worker.start();
    worker.wake();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await readJob(job.id)).status).toBe('Processing');
    // ...and an instance that considers it abandoned takes it again with the same charge key.
    const survivor = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      gateway,
      bulkWorker: { pollMs: 20, staleAfterMs: 0 },
    });
    try {
      await survivor.ready();
      const done = await waitForJob(job.id, 'Completed');
      expect(done).toMatchObject({ processedRecords: 1, failedProcessedRecords: 0 });
    } finally {
      await survivor.close();
    }
    const payments = await t.database.db
      .selectFrom('payments')
      .select(['gatewayTransactionId', 'status'])
      .where('customerId', '=', customerId)
      .execute();
    expect(payments).toEqual([
      { gatewayTransactionId: charged.status === 'succeeded' ? charged.value.transactionId : '', status: 'Succeeded' },
    ]);
  });

  it('records a card charge once when its holder pauses mid-charge and another instance takes the record over (fencing)', async () => {
    const cards = [await customerWithCard(), await customerWithCard()];
    const job = (
      await submit(
        cards.map((c, i) => ({ customerId: c.customerId, amount: 5 + i, paymentMethod: 'CreditCard', paymentMethodId: c.paymentMethodId })),
      )
    ).json();
    const worker = t.app.ctx.bulkWorker as BulkPaymentWorker;
    await worker.stop();
    let survivor: Awaited<ReturnType<typeof buildApp>> | undefined;
    try {
      expect((await t.call('POST', '/v1/BulkApi/Process', { id: job.id })).statusCode).toBe(200);
      // The holder that will pause: it claims both records, and its gateway calls hang (SIGSTOP) until released.
      const held = await claimRecords(t.database.db, t.app.ctx.instance, new Date(), 60_000, 10);
      expect(held.map((r) => r.jobId)).toEqual([job.id, job.id]);
      const real = t.app.ctx.payments.gateway;
      let resume!: () => void;
      const resumed = new Promise<void>((resolve) => (resume = resolve));
      let inCharge = 0;
      const paused: PaymentGateway = {
        name: real.name,
        validateCard: (card, signal) => real.validateCard(card, signal),
        resumeCardValidation: (id, signal) => real.resumeCardValidation(id, signal),
        dueEvents: (limit, signal) => real.dueEvents(limit, signal),
        acknowledgeEvents: (ids, signal) => real.acknowledgeEvents(ids, signal),
        submitDisputeEvidence: (request, signal) => real.submitDisputeEvidence(request, signal),
        refund: (request, signal) => real.refund(request, signal),
        findRefund: (key, signal) => real.findRefund(key, signal),
        async charge(request, signal) {
          const outcome = await real.charge(request, signal);
          inCharge += 1;
          await resumed;
          return outcome;
        },
      };
      const pausedCtx = { ...t.app.ctx, payments: { ...t.app.ctx.payments, gateway: paused, gatewayTimeoutMs: 60_000 } };
      const late = Promise.all(held.map((record) => collectBulkRecord(pausedCtx, record)));
      while (inCharge < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      // Meanwhile another instance judges the claims abandoned, pays the records under their own keys and completes the job.
      survivor = await buildApp({
        db: t.database.db,
        catalog: t.catalog,
        rateLimitStore: new MemoryRateLimitStore(),
        publicBaseUrl: BASE_URL,
        gateway: real,
        bulkWorker: { pollMs: 20, staleAfterMs: 0 },
      });
      await survivor.ready();
      const done = await waitForJob(job.id, 'Completed');
      expect(done).toMatchObject({ processedRecords: 2, failedProcessedRecords: 0 });
      // The paused holder resumes with the gateway's answers in hand: it records nothing.
      resume();
      await late;
      // And a finish under the superseded claim token writes nothing either.
      expect(await finishRecord(t.database.db, held[0]!, { status: 'Failed', paymentId: null, errors: null }, new Date())).toBe(false);
      const after = await readJob(job.id, '?view=full');
      for (const [i, c] of cards.entries()) {
        const payments = await paymentsOf(c.customerId);
        expect(payments).toEqual([expect.objectContaining({ amount: 5 + i, status: 'Succeeded' })]);
        expect(after.records[i]).toMatchObject({ status: 'Succeeded', paymentId: payments[0]!.id });
      }
    } finally {
      await survivor?.close();
      worker.start();
    }
  });

  it("refuses a second payment under one idempotency key in the key's life (the last guard)", async () => {
    const { customerId } = await customerWithCard();
    const row = {
      accountId: t.account.accountId,
      customerId,
      paymentMethodType: 'Cash',
      source: 'Import',
      amount: '1.00',
      currency: 'USD',
      status: 'Succeeded',
      effectiveAt: new Date(),
      idempotencyKey: 'bulk-record-guard',
    } as const;
    await t.database.db.insertInto('payments').values(row).execute();
    await expect(t.database.db.insertInto('payments').values(row).execute()).rejects.toMatchObject({ code: '23505' });
    // Another account's key of the same name is its own.
    const other = await t.newAccount();
    const otherCustomer = (
      await t.call(
        'POST',
        '/v1/customers',
        { firstName: 'O', lastName: 'K', primaryEmail: 'o@example.com', currency: 'USD' },
        { as: other },
      )
    ).json().id as number;
    await t.database.db
      .insertInto('payments')
      .values({ ...row, accountId: other.accountId, customerId: otherCustomer })
      .execute();
  });

  it('shares one job between instances: every record is paid exactly once', async () => {
    const others = [
      await buildApp({
        db: t.database.db,
        catalog: t.catalog,
        rateLimitStore: new MemoryRateLimitStore(),
        publicBaseUrl: BASE_URL,
        gateway: t.app.ctx.payments.gateway,
        bulkWorker: { pollMs: 5 },
      }),
      await buildApp({
        db: t.database.db,
        catalog: t.catalog,
        rateLimitStore: new MemoryRateLimitStore(),
        publicBaseUrl: BASE_URL,
        gateway: t.app.ctx.payments.gateway,
        bulkWorker: { pollMs: 5 },
      }),
    ];
    try {
      await Promise.all(others.map((o) => o.ready()));
      const customers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => customerWithCard()));
      const job = (
        await submit(
          customers.map((c, i) => ({
            customerId: c.customerId,
            amount: i + 1,
            paymentMethod: 'CreditCard',
            useDefaultPaymentMethod: true,
          })),
        )
      ).json();
      expect((await t.call('POST', '/v1/BulkApi/Process', { id: job.id })).statusCode).toBe(200);
      const done = await waitForJob(job.id, 'Completed');
      expect(done.processedRecords).toBe(6);
      for (const [i, c] of customers.entries()) {
        expect(await paymentsOf(c.customerId)).toEqual([expect.objectContaining({ amount: i + 1, status: 'Succeeded' })]);
      }
    } finally {
      for (const o of others) await o.close();
    }
  });
});
