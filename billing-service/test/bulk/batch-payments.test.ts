import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { BulkPaymentWorker } from '../../src/bulk/bulk-worker.js';
import { claimRecords } from '../../src/bulk/repository.js';
import { collectBulkBatch } from '../../src/bulk/service.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { messageOf } from '../../src/notifications/email-content.js';
import { BASIC_MONTHLY, PRO_MONTHLY, activeCustomer, cardBody, listInvoices, newCustomer } from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { BASE_URL, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The bulk worker pays records that need no gateway call a batch per transaction. Everything it
 * writes must be what paying them one at a time writes: the same jobs run both ways (the other
 * way by an instance with `batchPayments: false`) on customers made alike, and are compared.
 */

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
const appOptions = () => ({
  testClocks: true,
  webhooks: { allowHttp: true, allowPrivate: true },
  webhookWorker: false,
  email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 60_000 },
});
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await startTestApp({ app: appOptions() });
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] });
  expect(hook.statusCode, hook.body).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const worker = () => t.app.ctx.bulkWorker as BulkPaymentWorker;
const submit = async (data: unknown[]) => {
  const res = await t.call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as number;
};
const readJob = async (id: number) => (await t.call('GET', `/v1/BulkApi/${id}?view=full`)).json();

async function waitForJob(id: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const job = await readJob(id);
    if (job.status === 'Completed') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Processes the job on this app's worker (the batch path), or on another instance paying one record at a time. */
async function processJob(id: number, way: 'batch' | 'one at a time') {
  if (way === 'batch') {
    expect((await t.call('POST', '/v1/BulkApi/Process', { id })).statusCode).toBe(200);
    return waitForJob(id);
  }
  await worker().stop();
  const single = await buildApp({
    db: t.database.db,
    catalog: t.catalog,
    rateLimitStore: new MemoryRateLimitStore(),
    publicBaseUrl: BASE_URL,
    gateway: t.app.ctx.payments.gateway,
    ...appOptions(),
    bulkWorker: { pollMs: 10, batchPayments: false },
  });
  try {
    await single.ready();
    expect((await t.call('POST', '/v1/BulkApi/Process', { id })).statusCode).toBe(200);
    return await waitForJob(id);
  } finally {
    await single.close();
    worker().start();
  }
}

let emailCounter = 0;
/** A customer owing the posted invoice of its activation (BASIC and PRO); a month later, the renewal's too. */
async function owingCustomer() {
  const { customerId } = await activeCustomer(t, {
    body: { firstName: 'Ada', lastName: 'Byron', primaryEmail: `ada.${++emailCounter}@example.com`, billingSetting: { term: 'Net60' } },
    frequencies: [BASIC_MONTHLY, PRO_MONTHLY],
  });
  return customerId;
}

/** Items for three customers: partial payments, one that finishes an invoice and leaves money over, one kept unallocated. */
function itemsFor(c: number[]) {
  const [a, b, d] = c as [number, number, number];
  return [
    { customerId: a, amount: '10.00', paymentMethod: 'Cash', reference: 'a1' },
    { customerId: b, amount: '5.50', paymentMethod: 'Check', reference: 'b1' },
    { customerId: a, amount: '15.25', paymentMethod: 'DirectDeposit', reference: 'a2' },
    { customerId: d, amount: '3', paymentMethod: 'ACH', reference: 'd1', autoAllocate: false },
    { customerId: a, amount: '200', paymentMethod: 'Cash', reference: 'a3' },
    { customerId: b, amount: '7.01', paymentMethod: 'Cash', reference: 'b2', autoAllocateOrder: 'NewestToOldest' },
    { customerId: d, amount: '4.99', paymentMethod: 'Check', reference: 'd2' },
    { customerId: a, amount: '1.00', paymentMethod: 'Cash', reference: 'a4' },
  ];
}

/** What one customer's payments left behind, without ids and times (which differ between two runs). */
async function outcomeOf(customerId: number) {
  const payments = ((await t.call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<Record<string, any>>).sort(
    (x, y) => x.id - y.id,
  );
  const invoices = (await listInvoices(t, customerId)).sort((x, y) => x.id - y.id);
  const invoiceIndex = new Map(invoices.map((inv, i) => [inv.id as number, i]));
  const customer = (await t.call('GET', `/v1/customers/${customerId}`)).json();
  const paymentIds = payments.map((p) => p.id as number);
  const audit = await t.database.db
    .selectFrom('auditLog')
    .select(['actor', 'source', 'action', 'changes'])
    .where('entityType', '=', 'Payment')
    .where('entityId', 'in', paymentIds.length ? paymentIds : [0])
    .orderBy('id')
    .execute();
  const events = await t.database.db
    .selectFrom('webhookEvents')
    .select(['eventType', 'payload'])
    .where('customerId', '=', customerId)
    .where('eventType', 'in', ['payment.succeeded', 'invoice.paid'])
    .orderBy('id')
    .execute();
  const stored = await t.database.db
    .selectFrom('emailOutbox')
    .select(['emailType', 'content', 'subject', 'body', 'htmlBody'])
    .where('customerId', '=', customerId)
    .where('emailType', '=', 'PaymentReceived')
    .orderBy('id')
    .execute();
  // Each e-mail as the outbox worker writes it out when it sends.
  const emails = [];
  for (const m of stored) {
    const { subject, text } = await messageOf(m);
    emails.push({ emailType: m.emailType, subject, body: text });
  }
  const allocation = (a: Record<string, any>) => ({
    invoice: invoiceIndex.get(a.invoiceId),
    amount: a.amount,
    outstandingBalance: a.outstandingBalance,
    invoiceTotal: a.invoiceTotal,
  });
  const payment = (p: Record<string, any>) => ({
    reference: p.reference,
    amount: p.amount,
    status: p.status,
    paymentMethod: p.paymentMethod,
    source: p.source,
    unallocatedAmount: p.unallocatedAmount,
    refundableAmount: p.refundableAmount,
    invoiceAllocations: p.invoiceAllocations.map(allocation),
  });
  return {
    payments: payments.map(payment),
    invoices: invoices.map((inv) => ({
      invoiceAmount: inv.invoiceAmount,
      totalPayments: inv.totalPayments,
      outstandingBalance: inv.outstandingBalance,
      status: inv.status,
    })),
    balance: { accountBalance: customer.accountBalance, accountStatus: customer.accountStatus },
    audit: audit.map((r) => ({ ...r, changes: r.changes })),
    events: events.map((e) => {
      const { data } = e.payload as { data: Record<string, any> };
      return e.eventType === 'payment.succeeded'
        ? { type: e.eventType, payment: payment(data) }
        : {
            type: e.eventType,
            invoice: invoiceIndex.get(data.id),
            outstandingBalance: data.outstandingBalance,
            totalPayments: data.totalPayments,
            status: data.status,
          };
    }),
    emails: emails.map((m) => ({ ...m, body: m.body.replace(/ada\.\d+@example\.com/g, 'ada@example.com') })),
  };
}

const recordsOf = (job: Record<string, any>) =>
  job.records.map((r: Record<string, any>) => ({ status: r.status, errors: r.errors, paid: r.paymentId !== null }));

describe('bulk payments paid a batch per transaction', () => {
  it('allocates, audits, announces and mails exactly as paying one record at a time does', async () => {
    const batchCustomers = [await owingCustomer(), await owingCustomer(), await owingCustomer()];
    const singleCustomers = [await owingCustomer(), await owingCustomer(), await owingCustomer()];
    // A month on, each owes a second invoice: payments go to the older first (or the newer, as asked).
    const clock = (await t.call('GET', '/v1/testclock')).json();
    const advanced = await t.call('POST', '/v1/testclock/advance', {
      to: new Date(new Date(clock.now).getTime() + 35 * 86_400_000).toISOString(),
    });
    expect(advanced.statusCode, advanced.body).toBe(200);
    for (const c of [...batchCustomers, ...singleCustomers])
      expect((await listInvoices(t, c)).filter((inv) => inv.outstandingBalance > 0)).toHaveLength(2);

    const batchJob = await processJob(await submit(itemsFor(batchCustomers)), 'batch');
    const singleJob = await processJob(await submit(itemsFor(singleCustomers)), 'one at a time');
    expect(recordsOf(batchJob)).toEqual(recordsOf(singleJob));
    expect(recordsOf(batchJob).every((r: { status: string }) => r.status === 'Succeeded')).toBe(true);

    for (const [i, customerId] of batchCustomers.entries()) {
      const batch = await outcomeOf(customerId);
      expect(batch).toEqual(await outcomeOf(singleCustomers[i]!));
      // Each customer's payments were made in record order.
      expect(batch.payments.map((p) => p.reference)).toEqual(
        itemsFor(batchCustomers)
          .filter((item) => item.customerId === customerId)
          .map((item) => item.reference),
      );
    }
    // Something was allocated, something finished paying an invoice, something stayed over.
    const first = await outcomeOf(batchCustomers[0]!);
    expect(first.events.map((e) => e.type)).toContain('invoice.paid');
    expect(first.invoices.every((inv) => inv.outstandingBalance === 0)).toBe(true);
    expect(first.payments[0]!.invoiceAllocations[0]).toMatchObject({ amount: 10 });
    expect(first.payments[2]!.unallocatedAmount).toBeGreaterThan(0);
    expect(first.emails).toHaveLength(4);
    // The payment's event shows the invoice as that payment left it, not as the batch's later payments did.
    const [firstEvent] = first.events;
    expect(firstEvent).toMatchObject({ type: 'payment.succeeded' });
    expect(
      (firstEvent as { payment: { invoiceAllocations: Array<{ outstandingBalance: number }> } }).payment.invoiceAllocations[0]!
        .outstandingBalance,
    ).toBeGreaterThan(0);
  });

  it('fails the records that can no longer be paid, alone, with the errors paying one at a time gives', async () => {
    const run = async (way: 'batch' | 'one at a time') => {
      const kept = await owingCustomer();
      const gone = await newCustomer(t, {});
      const jobId = await submit([
        { customerId: kept, amount: '2.00', paymentMethod: 'Cash', reference: 'k1' },
        { customerId: gone, amount: '3.00', paymentMethod: 'Cash', reference: 'g1' },
        { customerId: kept, amount: '4.00', paymentMethod: 'Check', reference: 'k2' },
        { customerId: kept, amount: '5.00', paymentMethod: 'Cash', reference: 'k3' },
      ]);
      // Between submission and processing: the customer is removed, and a stored item no longer reads as a payment.
      await t.database.db.deleteFrom('customers').where('id', '=', gone).execute();
      await sql`update bulk_job_records set item = '{"customerId": "x"}'::jsonb where job_id = ${jobId} and position = 3`.execute(
        t.database.db,
      );
      const job = await processJob(jobId, way);
      return { records: recordsOf(job), kept: await outcomeOf(kept), gone };
    };
    const batch = await run('batch');
    const single = await run('one at a time');
    expect(batch.records.map((r: { status: string }) => r.status)).toEqual(['Succeeded', 'Failed', 'Succeeded', 'Failed']);
    expect(batch.records[1].errors).toEqual([{ Key: 'Api Error', Value: `customer with id ${batch.gone} not found`, Code: 'not_found' }]);
    expect(batch.records[3].errors).toEqual([{ Key: 'Api Error', Value: 'the stored item is no longer valid', Code: 'state_conflict' }]);
    expect(single.records[1].errors).toEqual([{ Key: 'Api Error', Value: `customer with id ${single.gone} not found`, Code: 'not_found' }]);
    expect({ ...batch.records[1], errors: undefined }).toEqual({ ...single.records[1], errors: undefined });
    expect([batch.records[0], batch.records[2], batch.records[3]]).toEqual([single.records[0], single.records[2], single.records[3]]);
    expect(batch.kept).toEqual(single.kept);
    expect(batch.kept.payments.map((p) => p.reference)).toEqual(['k1', 'k2']);
  });

  it('pays card records one at a time beside the batch, and a customer with a card record keeps its record order', async () => {
    const withCard = await newCustomer(t, {});
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId: withCard, ...cardBody() });
    expect(card.statusCode, card.body).toBe(200);
    const cashOnly = await owingCustomer();
    const jobId = await submit([
      { customerId: withCard, amount: '1.00', paymentMethod: 'Cash', reference: 'w1' },
      { customerId: cashOnly, amount: '2.00', paymentMethod: 'Cash', reference: 'c1' },
      { customerId: withCard, amount: '3.00', paymentMethod: 'CreditCard', useDefaultPaymentMethod: true, reference: 'w2' },
      { customerId: cashOnly, amount: '4.00', paymentMethod: 'Check', reference: 'c2' },
      { customerId: withCard, amount: '5.00', paymentMethod: 'Check', reference: 'w3' },
    ]);
    const job = await processJob(jobId, 'batch');
    expect(job.records.map((r: { status: string }) => r.status)).toEqual(['Succeeded', 'Succeeded', 'Succeeded', 'Succeeded', 'Succeeded']);
    const cardCustomer = await outcomeOf(withCard);
    expect(cardCustomer.payments.map((p) => [p.reference, p.paymentMethod, p.amount])).toEqual([
      ['w1', 'Cash', 1],
      ['w2', 'CreditCard', 3],
      ['w3', 'Check', 5],
    ]);
    expect((await outcomeOf(cashOnly)).payments.map((p) => p.reference)).toEqual(['c1', 'c2']);
    const gatewayIds = await t.database.db
      .selectFrom('payments')
      .select('gatewayTransactionId')
      .where('customerId', '=', withCard)
      .orderBy('id')
      .execute();
    expect(gatewayIds.map((p) => p.gatewayTransactionId !== null)).toEqual([false, true, false]);
  });

  it('pays a batch one record at a time when its transaction fails, and every record once', async () => {
    // A fault only a batch meets: a statement writing several payments at once is refused.
    await sql`
      create function refuse_payment_batches() returns trigger language plpgsql as $$
      begin
        if (select count(*) from new_payments) > 1 then raise exception 'test: no batches'; end if;
        return null;
      end $$`.execute(t.database.db);
    await sql`create trigger refuse_payment_batches after insert on payments referencing new table as new_payments for each statement execute function refuse_payment_batches()`.execute(
      t.database.db,
    );
    try {
      const a = await owingCustomer();
      const b = await owingCustomer();
      const jobId = await submit([
        { customerId: a, amount: '1.00', paymentMethod: 'Cash', reference: 'a1' },
        { customerId: b, amount: '2.00', paymentMethod: 'Cash', reference: 'b1' },
        { customerId: a, amount: '3.00', paymentMethod: 'Cash', reference: 'a2' },
      ]);
      const job = await processJob(jobId, 'batch');
      expect(job.records.map((r: { status: string }) => r.status)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
      expect((await outcomeOf(a)).payments.map((p) => p.reference)).toEqual(['a1', 'a2']);
      expect((await outcomeOf(b)).payments.map((p) => p.reference)).toEqual(['b1']);
      expect((await outcomeOf(a)).audit).toHaveLength(2);
    } finally {
      await sql`drop trigger refuse_payment_batches on payments`.execute(t.database.db);
      await sql`drop function refuse_payment_batches()`.execute(t.database.db);
    }
  });

  it('never pays a record twice: a crashed batch is claimed again, and a claim taken over is not paid by its first holder', async () => {
    const customerId = await owingCustomer();
    const jobId = await submit([1, 2, 3].map((n) => ({ customerId, amount: `${n}.00`, paymentMethod: 'Cash', reference: `r${n}` })));
    await worker().stop();
    let survivor: Awaited<ReturnType<typeof buildApp>> | undefined;
    try {
      expect((await t.call('POST', '/v1/BulkApi/Process', { id: jobId })).statusCode).toBe(200);
      // The instance that crashes: it claims the records and dies before its batch commits.
      const crashed = await claimRecords(t.database.db, t.app.ctx.instance, new Date(), 60_000, 10);
      expect(crashed.map((r) => r.jobId)).toEqual([jobId, jobId, jobId]);
      // Another instance takes them as abandoned and pays them.
      survivor = await buildApp({
        db: t.database.db,
        catalog: t.catalog,
        rateLimitStore: new MemoryRateLimitStore(),
        publicBaseUrl: BASE_URL,
        gateway: t.app.ctx.payments.gateway,
        ...appOptions(),
        bulkWorker: { pollMs: 10, staleAfterMs: 0 },
      });
      await survivor.ready();
      const job = await waitForJob(jobId);
      expect(job.records.map((r: { status: string }) => r.status)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
      // The first holder comes back to life and pays its claim: the records are no longer its own, nothing is paid.
      await collectBulkBatch(t.app.ctx, crashed, { parallel: 4, batchPayments: true });
    } finally {
      await survivor?.close();
      worker().start();
    }
    const outcome = await outcomeOf(customerId);
    expect(outcome.payments.map((p) => p.reference)).toEqual(['r1', 'r2', 'r3']);
    expect(outcome.audit).toHaveLength(3);
    expect(outcome.events.filter((e) => e.type === 'payment.succeeded')).toHaveLength(3);
    const paymentIds = (
      await t.database.db.selectFrom('payments').select('id').where('customerId', '=', customerId).orderBy('id').execute()
    ).map((p) => p.id);
    expect((await readJob(jobId)).records.map((r: { paymentId: number }) => r.paymentId)).toEqual(paymentIds);
  });
});
