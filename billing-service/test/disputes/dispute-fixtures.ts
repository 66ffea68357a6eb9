import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect } from 'vitest';
import { ingestDueGatewayEvents } from '../../src/disputes/event-worker.js';
import { SandboxGateway } from '../../src/gateway/sandbox-gateway.js';
import { money } from '../../src/money/money.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { ACTIVATION_FLAGS, activate, cardBody, listInvoices, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { startReceiver } from '../webhooks/receiver.js';

/**
 * The disputes tests' app (issue 37): e-mail to a local SMTP server, a webhook receiver subscribed to the
 * dispute events, test clocks, the sandbox disputing 0259 charges at once, and the gateway events task run
 * on demand (`runWorker`); with the helpers the test files share.
 */

export const MERCHANT = 'ops@inkwell.test';
export const DISPUTED_CARD = '4000000000000259';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let hookSecret: string;

/** Starts the app before the file's tests and closes it after; answers a getter of it. */
export function useDisputesApp(): () => TestApp {
  beforeAll(startDisputesApp);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await smtp?.close();
  });
  return () => t;
}

async function startDisputesApp() {
  smtp = await startSmtpStandIn();
  receiver = await startReceiver();
  t = await startTestApp({
    catalog: testCatalog({ account: { name: 'Inkwell', email: MERCHANT } }),
    app: {
      email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20 },
      webhooks: { allowHttp: true, allowPrivate: true },
      webhookWorker: false,
      // the test runs the worker's rounds itself
      gatewayEvents: false,
      // an account of its own moves its clock (the overdue story)
      testClocks: true,
    },
  });
  // disputes due at once, and closed at once once decided
  t.app.ctx.payments.gateway = new SandboxGateway(t.database.db, { disputeDelayMs: 0 });
  const hook = await t.call('POST', '/v1/webhookEndpoints', {
    url: receiver.url('/hooks'),
    eventTypes: ['dispute.created', 'dispute.closed'],
  });
  expect(hook.statusCode, hook.body).toBe(200);
  hookSecret = hook.json().secret;
}

/** An active customer on BASIC monthly whose first invoice was paid with a card of `cardNumber` (in `account`, default the test's). */
export async function paidWithCard(cardNumber = DISPUTED_CARD, account?: TestAccount) {
  const as = account ? { as: account } : {};
  const customerId = await newCustomer(t, { firstName: 'Grace', lastName: 'Hopper', currency: 'USD' }, account);
  await newSubscription(t, customerId, undefined, account);
  const activated = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
  expect(activated.statusCode, activated.body).toBe(200);
  const invoice = activated.json().invoices[0] as { id: number; invoiceAmount: number; dueTimestamp: string };
  const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber }), isDefault: true }, as);
  expect(card.statusCode, card.body).toBe(200);
  const paid = await t.call('POST', '/v1/payments', { customerId, amount: invoice.invoiceAmount, paymentMethodId: card.json().id }, as);
  expect(paid.statusCode, paid.body).toBe(200);
  expect((await listInvoices(t, customerId, account))[0]).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
  return { customerId, invoice, payment: paid.json() as { id: number; amount: number } };
}

/**
 * The ledger's rule after a dispute moved it: every entry's amount less its open amount is what its
 * allocations moved, no open amount is out of [0, amount].
 */
export async function expectBalancedLedger(customerId: number) {
  const db = t.app.ctx.db;
  const entries = await db.selectFrom('ledgerEntries').selectAll().where('customerId', '=', customerId).execute();
  const allocations = await db
    .selectFrom('ledgerAllocations')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb(
          'sourceEntryId',
          'in',
          entries.map((e) => e.id),
        ),
        eb(
          'invoiceEntryId',
          'in',
          entries.map((e) => e.id),
        ),
      ]),
    )
    .execute();
  expect(entries.map((e) => e.entryType)).toContain('dispute');
  for (const e of entries) {
    const moved = allocations
      .filter((a) => a.sourceEntryId === e.id || a.invoiceEntryId === e.id)
      .reduce((sum, a) => sum.plus(a.amount), money(0));
    expect(moved.toString(), `entry ${e.id} (${e.entryType})`).toBe(money(e.amount).minus(e.openAmount).toString());
    expect(money(e.openAmount).greaterThanOrEqualTo(0) && money(e.openAmount).lessThanOrEqualTo(e.amount)).toBe(true);
  }
}

/** One round of the gateway event worker, as every instance runs it. */
export const runWorker = () => ingestDueGatewayEvents(t.app.ctx, t.app.log);

export async function disputesOf(paymentId: number) {
  const res = await t.call('GET', `/v1/disputes?query=PaymentId:${paymentId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

export async function disputeOf(paymentId: number) {
  await runWorker();
  const [dispute] = await disputesOf(paymentId);
  expect(dispute, 'the dispute of the payment').toBeDefined();
  return dispute as Record<string, any>;
}

export function evidence(disputeId: number, text: unknown, key = `evidence-${disputeId}-${String(text).slice(0, 20)}`) {
  return t.call('POST', `/v1/disputes/${disputeId}/evidence`, { text }, { headers: { 'idempotency-key': key } });
}

/** How many webhook requests the receiver has had: `disputeEvents(from, …)` reads those after it. */
export const receivedCount = () => receiver.received.length;

/** The webhook events delivered since `from` about dispute `id`. */
export async function disputeEvents(from: number, id: number) {
  const worker = new WebhookDeliveryWorker(t.database.db, { allowHttp: true, allowPrivate: true, timeoutMs: 2_000 }, t.app.log);
  while ((await worker.runDue(new Date(Date.now() + 1000))) > 0);
  return receiver.received
    .slice(from)
    .map((r) => new Webhook(hookSecret).verify(r.body, r.headers) as { type: string; data: any })
    .filter((e) => e.data.id === id);
}

export async function mailsAbout(paymentId: number, atLeast: number, waitMs = 20_000) {
  const deadline = Date.now() + waitMs; // a wait for the outbox worker, not a timing
  for (;;) {
    const mails = smtp.received.filter((m) => m.to.includes(MERCHANT) && m.subject.includes(`payment ${paymentId} is disputed`));
    if (mails.length >= atLeast || Date.now() > deadline) return mails;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
