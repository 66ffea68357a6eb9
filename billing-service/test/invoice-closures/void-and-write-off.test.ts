import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  DAY,
  cardBody,
  activate,
  listInvoices,
  newCustomer,
  newSubscription,
  readOverview,
} from '../helpers/api-fixtures.js';
import { accountOnClock, advanceClock, CLOCK_START, WITH_OUTBOXES } from '../helpers/clock-accounts.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { modelCatalog } from '../ledger-model/harness.js';
import { expectError, ledgerRows } from '../lifecycle/lifecycle-fixtures.js';

/**
 * Issue 40: POST /v1/Invoices/{id}/void and /writeOff. A void takes an unpaid posted invoice out of AR (a `void`
 * ledger entry), after which it takes no payment and the period it billed is billed again on uncancel; a write-off
 * closes what is owed as a `write_off` entry (not a payment), stops dunning and lets a Suspended customer return.
 * The model catalogue prices BASIC monthly in USD (19.99 + 10.00 setup), JPY (2980 + 1500) and BHD (7.125 + 3.750).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: modelCatalog(), app: { testClocks: true, backgroundTasks: false, ...WITH_OUTBOXES } });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;
const START = CLOCK_START;
const isoDay = (at: Date) => at.toISOString().slice(0, 10);

const newAccount = () => accountOnClock(t);

const advance = (account: TestAccount, to: Date) => advanceClock(t, account, to);

/** A customer on BASIC monthly in `currency`, activated now (its invoice posted, unpaid); `card`: a default card. */
async function activated(account: TestAccount, currency = 'USD', options: { card?: string; autoCollect?: boolean } = {}) {
  const customerId = await newCustomer(t, { currency, primaryEmail: `closures.${account.accountId}@example.com` }, account);
  await newSubscription(t, customerId, BASIC_MONTHLY, account);
  if (options.card) {
    const card = cardBody({ customerId, cardNumber: options.card });
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', card, { as: account });
    expect(res.statusCode, res.body).toBe(200);
  }
  if (options.autoCollect) {
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
    const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true }, { as: account });
    expect(put.statusCode, put.body).toBe(200);
  }
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
  expect(res.statusCode, res.body).toBe(200);
  const [invoice] = res.json().invoices as Body[];
  return { customerId, invoice: invoice! };
}

const close = (account: TestAccount, invoiceId: number, what: 'void' | 'writeOff', body?: Body, key?: string) =>
  t.call('POST', `/v1/Invoices/${invoiceId}/${what}`, body, { as: account, ...(key ? { headers: { 'idempotency-key': key } } : {}) });

const pay = (account: TestAccount, body: Body) => t.call('POST', '/v1/payments', { paymentMethod: 'Check', ...body }, { as: account });

async function failedPayments(account: TestAccount, customerId: number) {
  const res = await t.call('GET', `/v1/customers/${customerId}/payments?pageSize=1000`, undefined, { as: account });
  return (res.json() as Body[]).filter((p) => p.status === 'Failed').length;
}

async function eventsOf(customerId: number) {
  const rows = await t.database.db
    .selectFrom('webhookEvents')
    .select(['eventType', 'payload'])
    .where('customerId', '=', customerId)
    .orderBy('id')
    .execute();
  return rows.map((r) => [r.eventType, (r.payload as Body).data?.id ?? null, (r.payload as Body).data?.status ?? null]);
}

describe('POST /v1/Invoices/{id}/void', () => {
  it('voids an unpaid invoice: out of AR, one void entry, audited and announced; a retry with its key gets the first answer; it takes no payment', async () => {
    const account = await newAccount();
    const { customerId, invoice } = await activated(account);
    expect(await readOverview(t, customerId, account)).toMatchObject({ arBalance: 29.99 });

    const res = await close(account, invoice.id, 'void', { reason: 'billed by mistake' }, 'void-1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ...invoice, status: 'Void', totalPayments: 0, outstandingBalance: 0 });
    const again = await close(account, invoice.id, 'void', { reason: 'billed by mistake' }, 'void-1');
    expect([again.statusCode, again.json()]).toEqual([200, res.json()]);
    expectError(await close(account, invoice.id, 'void'), 409, { Key: 'invoiceId', Code: 'invoice_closed' });
    expectError(await close(account, invoice.id, 'writeOff', { reason: 'x' }), 409, { Key: 'invoiceId', Code: 'invoice_closed' });

    expect(await readOverview(t, customerId, account)).toMatchObject({ arBalance: 0, customerAccountStatus: 'Good' });
    const entries = (await ledgerRows(t, customerId)).map((e) => [e.entryType, Number(e.amount), Number(e.openAmount), e.invoiceId]);
    expect(entries).toEqual([
      ['invoice', 29.99, 0, invoice.id],
      ['void', 29.99, 0, invoice.id],
    ]);
    expect(await eventsOf(customerId)).toContainEqual(['invoice.voided', invoice.id, 'Void']);
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select('changes')
      .where('entityType', '=', 'Invoice')
      .where('entityId', '=', invoice.id)
      .where('action', '=', 'update')
      .execute();
    expect(audit.map((a) => a.changes)).toEqual([
      { status: ['Posted', 'Void'], voidedAmount: [null, '29.99'], reason: [null, 'billed by mistake'] },
    ]);

    // no payment reaches it: named, refused; unnamed, the money stays unallocated
    expectError(await pay(account, { customerId, amount: 29.99, paymentAllocations: [{ invoiceId: invoice.id, amount: 29.99 }] }), 409, {
      Key: 'paymentAllocations[0].invoiceId',
      Code: 'invoice_closed',
    });
    expect((await pay(account, { customerId, amount: 5 })).statusCode).toBe(200);
    expect(await readOverview(t, customerId, account)).toMatchObject({ arBalance: 0, unallocatedPayments: 5 });
    expect((await t.call('GET', `/v1/Invoices/${invoice.id}`, undefined, { as: account })).json().status).toBe('Void');
    const listed = await t.call('GET', `/v1/Customers/${customerId}/Invoices?filter=Status eq Void`, undefined, { as: account });
    expect(listed.json().map((i: Body) => i.id)).toEqual([invoice.id]);
  });

  it('refuses a paid or partly paid invoice, a Draft, an unknown one; a write-off refuses a paid one and wants a reason', async () => {
    const account = await newAccount();
    const { customerId, invoice } = await activated(account);
    expect((await pay(account, { customerId, amount: 0.01 })).statusCode).toBe(200);
    expectError(await close(account, invoice.id, 'void'), 409, { Key: 'invoiceId', Code: 'invoice_has_payments' });
    expect((await pay(account, { customerId, amount: 29.98 })).statusCode).toBe(200);
    expectError(await close(account, invoice.id, 'void'), 409, { Key: 'invoiceId', Code: 'invoice_has_payments' });
    expectError(await close(account, invoice.id, 'writeOff', { reason: 'gone' }), 409, { Key: 'invoiceId', Code: 'invoice_nothing_owed' });
    expectError(await close(account, invoice.id, 'writeOff', {}), 400, { Key: 'reason' });
    expectError(await close(account, invoice.id, 'writeOff', { reason: 'x'.repeat(501) }), 400, { Key: 'reason' });
    expectError(await close(account, 2_000_000_000, 'void'), 404);
    expect((await t.call('GET', `/v1/Invoices/${invoice.id}`, undefined, { as: account })).json().status).toBe('Paid');

    const other = await newCustomer(t, { currency: 'USD' }, account);
    await newSubscription(t, other, BASIC_MONTHLY, account);
    const drafted = await activate(t, other, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true }, '?view=sideeffects', account);
    const draft = (drafted.json().invoices as Body[])[0]!;
    expectError(await close(account, draft.id, 'void'), 409, { Key: 'invoiceId', Code: 'invoice_not_posted' });
    expectError(await close(account, draft.id, 'writeOff', { reason: 'x' }), 409, { Key: 'invoiceId', Code: 'invoice_not_posted' });
  });

  it('counts the voided period as not billed: an uncancel bills its rest again (without the void, nothing)', async () => {
    for (const voided of [true, false]) {
      const account = await newAccount();
      const { customerId, invoice } = await activated(account);
      expect(
        (await t.call('POST', '/v1/customercancellation', { customerId, cancellationOption: 'None' }, { as: account })).statusCode,
      ).toBe(204);
      if (voided) expect((await close(account, invoice.id, 'void')).statusCode).toBe(200);
      const back = new Date(START.getTime() + 10 * DAY);
      await advance(account, back);
      const res = await t.call('POST', `/v1/customers/uncancel/${customerId}`, undefined, { as: account });
      expect(res.statusCode, res.body).toBe(200);
      const invoices = await listInvoices(t, customerId, account);
      if (!voided) {
        expect(invoices.map((i) => i.id)).toEqual([invoice.id]);
        continue;
      }
      const periodEnd = invoice.charges[0].endServiceDate as string;
      expect(invoices.map((i) => i.status)).toEqual(['Void', 'Posted']);
      const days = (Date.parse(periodEnd) - Date.parse(isoDay(back))) / DAY;
      const periodDays = (Date.parse(periodEnd) - Date.parse(isoDay(START))) / DAY;
      expect(invoices[1]!.charges.map((c: Body) => [c.chargeType, c.startServiceDate, c.endServiceDate, c.amount])).toEqual([
        ['Recurring', isoDay(back), periodEnd, Math.round((1999 * days) / periodDays) / 100],
      ]);
    }
  });
});

describe('POST /v1/Invoices/{id}/writeOff', () => {
  for (const [currency, paid, owed] of [
    ['JPY', 1, 4479],
    ['BHD', 0.001, 10.874],
  ] as const) {
    it(`writes off a Suspended customer's only open invoice in ${currency}: exact amounts, back to Active, dunning stops`, async () => {
      const account = await newAccount();
      // a declining default card and automatic collection: the clock retries daily until the write-off
      const { customerId, invoice } = await activated(account, currency, { card: '4000000000000341', autoCollect: true });
      expect((await pay(account, { customerId, amount: paid })).statusCode).toBe(200);
      await advance(account, new Date(START.getTime() + 9 * DAY));
      expect(await readOverview(t, customerId, account)).toMatchObject({
        status: 'Suspended',
        customerAccountStatus: 'PoorStanding',
        arBalance: owed,
      });
      const failedBefore = await failedPayments(account, customerId);
      expect(failedBefore).toBeGreaterThan(1);

      const res = await close(account, invoice.id, 'writeOff', { reason: 'customer unreachable' }, `wo-${currency}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'WrittenOff',
        totalPayments: paid,
        outstandingBalance: 0,
        invoiceAmount: invoice.invoiceAmount,
      });
      const retried = await close(account, invoice.id, 'writeOff', { reason: 'customer unreachable' }, `wo-${currency}`);
      expect([retried.statusCode, retried.json()]).toEqual([200, res.json()]);

      expect(await readOverview(t, customerId, account)).toMatchObject({ status: 'Active', customerAccountStatus: 'Good', arBalance: 0 });
      const entries = (await ledgerRows(t, customerId)).filter((e) => e.entryType === 'write_off');
      expect(entries.map((e) => [Number(e.amount), Number(e.openAmount), e.invoiceId, e.description])).toEqual([
        [owed, 0, invoice.id, 'customer unreachable'],
      ]);
      const events = (await eventsOf(customerId)).map((e) => e[0]);
      expect(events).toContain('invoice.writtenOff');
      expect(events.indexOf('customer.reactivated')).toBeGreaterThan(events.indexOf('invoice.writtenOff'));
      expect(events).not.toContain('invoice.paid');

      // dunning stopped: no more retries, notices or suspension for it
      const emailsBefore = await emails(customerId);
      await advance(account, new Date(START.getTime() + 20 * DAY));
      expect(await failedPayments(account, customerId)).toBe(failedBefore);
      expect(await emails(customerId)).toEqual(emailsBefore);
      expect(await readOverview(t, customerId, account)).toMatchObject({ status: 'Active' });
    });
  }
});

async function emails(customerId: number) {
  const rows = await t.database.db
    .selectFrom('emailOutbox')
    .select('emailType')
    .where('customerId', '=', customerId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.emailType);
}
