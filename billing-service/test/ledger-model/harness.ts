/**
 * Runs model commands against the real service (one customer with one to three BASIC
 * subscriptions, their coupons and billing period rules as the run's Setup says, dates chosen by the
 * test) and against the reference model (ledger-model.ts), and after every step checks the ledger's
 * invariants through the API and the database, and that the service agrees with the model on every
 * amount, discount, subscription period and coupon use. The app runs with test clocks: each run's
 * account stands at noon of the model's day, so payments, refunds and postings made through the API
 * happen when the model says (when an invoice was paid or reopened decides when its customer is
 * PoorStanding).
 */
import { expect } from 'vitest';
import type { Catalog } from '../../src/catalog/schema.js';
import type { Caller } from '../../src/http/auth.js';
import { clientError } from '../../src/http/errors.js';
import { Refusal } from '../../src/refusals/refusal.js';
import { activateCustomer } from '../../src/lifecycle/activation.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { cancelCustomer, uncancelCustomer } from '../../src/lifecycle/cancellation.js';
import { holdCustomer } from '../../src/lifecycle/hold.js';
import { unholdCustomer } from '../../src/lifecycle/unhold.js';
import { testCatalog, type TestApp } from '../helpers/test-app.js';
import { ACTIVATION_FLAGS, callerOf } from '../lifecycle/lifecycle-fixtures.js';
import * as model from './ledger-model.js';
import { dayFromIso, formatMinor, isoDay, minorOf, noonOf, partsOf } from './model-arith.js';

export type Command =
  /** `draft`: with temporarilyDisableAutoPost (the invoices stay Draft); `purchases`: with activateAllDraftPurchases. */
  | { type: 'activate'; draft?: boolean; purchases?: boolean }
  /** POST /v1/purchases of an ad hoc charge: `quantity` × `cents` (scaled to the currency), at once or not. */
  | { type: 'purchase'; cents: number; quantity: number; invoiceNow: boolean }
  | { type: 'clock'; days: number }
  | { type: 'wait'; days: number }
  | { type: 'pay'; mode: model.PaymentMode; cents: number }
  | { type: 'payExplicit'; parts: Array<{ pick: number; permille: number }>; extraCents: number; short: boolean }
  | { type: 'declined'; cents: number }
  /** A refund of one of the payments so far (`pick` modulo their number): `permille` of what is left of it, plus `extraCents`. */
  | { type: 'refund'; pick: number; permille: number; extraCents: number }
  | { type: 'cancel'; option: model.CancelOption }
  | { type: 'uncancel' }
  | { type: 'hold' }
  | { type: 'unhold'; option: model.StartOption; prorate: boolean; draft?: boolean }
  /** POST /v1/invoices/{id}/post of a draft (`pick` modulo their number), or of any invoice when `anyInvoice`. */
  | { type: 'postDraft'; pick: number; anyInvoice: boolean }
  /**
   * `requests` concurrent card payments (a card that charges), each of what a posted invoice owes
   * (`pick` modulo the open ones) with an explicit allocation of all of it to that invoice: exactly
   * one is honoured, the others are refused (400) before the card is charged.
   */
  | { type: 'race'; pick: number; requests: number }
  /**
   * POST /v1/subscriptions/{id}/changes of subscription `pick` (modulo their number): to `target` (an index into
   * model.FREQUENCIES, or -1 for PRO monthly, which no switch allows; null: its own plan frequency) and/or `quantity`
   * seats, `timing` or the default. `preview`: first the preview, which must equal what the change then posts.
   */
  | { type: 'change'; pick: number; target: number | null; quantity: number | null; timing: model.Timing | null; preview: boolean }
  /** DELETE /v1/subscriptions/{id}/changes/pending of subscription `pick`. */
  | { type: 'withdraw'; pick: number }
  /** POST /v1/Invoices/{id}/void or /writeOff (issue 40) of invoice `pick` (modulo their number: drafts and closed ones too). */
  | { type: 'void'; pick: number }
  | { type: 'writeOff'; pick: number }
  /**
   * POST /v1/creditNotes (issue 40) of line `line` of invoice `pick` (each modulo their number): `permille` of the
   * line's net plus `extraCents` (so sometimes more than is left of it), without refund.
   */
  | { type: 'creditNote'; pick: number; line: number; permille: number; extraCents: number };

export function describeCommand(c: Command): string {
  return JSON.stringify(c);
}

export interface Run {
  t: TestApp;
  /** t.call as the run's own account */
  call: TestApp['call'];
  caller: Caller;
  accountId: number;
  customerId: number;
  /** In the order of the setup (model index → id). */
  subscriptionIds: number[];
  /** The default card: every charge declined. */
  cardId: number;
  /** A card whose charges succeed (not the default: automatic collection is off anyway). */
  goodCardId: number;
  m: model.Model;
  /** The minor units of the run's currency. */
  digits: number;
  log: string[];
}

/** Amounts of the commands are given in US cents; other currencies scale them to a like size (JPY ×1.5, BHD ×3.5). */
function scaled(run: Run, cents: number | bigint): bigint {
  const factor = { USD: [1n, 1n], JPY: [3n, 2n], BHD: [7n, 2n] }[run.m.currency];
  const v = (BigInt(cents) * factor[0]!) / factor[1]!;
  return v < 1n ? 1n : v;
}

const card = { firstName: 'Model', lastName: 'Run', expirationMonth: 11, expirationYear: 35, cvv: '321' };

/** Stands the account's test clock at `at` (set directly: an advance would also run the billing clock). */
async function setAccountTime(t: TestApp, accountId: number, at: Date) {
  await t.database.db
    .insertInto('accountClocks')
    .values({ accountId, frozenAt: at, firstAdvancedAt: at })
    .onConflict((oc) => oc.column('accountId').doUpdateSet({ frozenAt: at }))
    .execute();
}

/**
 * The demo catalogue in USD, JPY and BHD with the model's plans (model.FREQUENCIES: BASIC every 1, 2 and 3
 * months and 2 years, 1 to 10 seats; PLUS monthly and yearly, 1 to 20 seats), the switch BASIC → PLUS allowed,
 * and the model's coupons (COUPONS), so the model's figures and the service's come from one table.
 */
export function modelCatalog(): Catalog {
  const base = testCatalog();
  const priced = (amounts: Record<model.Currency, bigint>) =>
    model.CURRENCIES.filter((c) => amounts[c] > 0n).map((c) => ({ currency: c, amount: formatMinor(amounts[c], model.DIGITS[c]) }));
  const frequencyOf = (f: model.Frequency) => ({
    id: f.id,
    interval: f.interval,
    numberOfIntervals: f.numberOfIntervals,
    isProrated: true,
    prices: [{ product: 'SEAT', charges: priced(f.prices), setupFees: priced(f.setupFees) }],
  });
  const seat = (plan: model.PlanCode) => ({
    code: 'SEAT',
    name: 'Seat',
    quantity: 1,
    minQuantity: 1,
    maxQuantity: model.PLAN_SEATS[plan].max,
  });
  const plans = [
    ...base.plans.map((plan) =>
      plan.code !== 'BASIC'
        ? plan
        : {
            ...plan,
            products: [seat('BASIC')],
            frequencies: [
              ...plan.frequencies.filter((p) => !model.FREQUENCIES.some((f) => f.id === p.id)),
              ...model.FREQUENCIES.filter((f) => f.plan === 'BASIC').map(frequencyOf),
            ],
          },
    ),
    {
      id: 4,
      code: 'PLUS',
      name: 'Plus',
      description: 'The ledger model plan BASIC may switch to',
      products: [seat('PLUS')],
      frequencies: model.FREQUENCIES.filter((f) => f.plan === 'PLUS').map(frequencyOf),
    },
  ];
  const coupons = [
    ...base.coupons,
    ...model.COUPONS.filter((c) => !base.coupons.some((k) => k.code === c.code)).map((c) => ({
      code: c.code,
      ...(c.name ? { name: c.name } : {}),
      kind: c.kind,
      value: c.kind === 'Amount' ? formatMinor(c.value, 2) : String(c.value),
      ...(c.kind === 'Amount' ? { currency: 'USD' } : {}),
      duration: c.duration,
      ...(c.periods ? { periods: c.periods } : {}),
    })),
  ];
  return testCatalog({
    plans,
    coupons,
    currencies: { default: 'USD', allowed: [...model.CURRENCIES] },
    planChanges: { allowed: [{ from: 'BASIC', to: 'PLUS' }], downgradeTiming: 'periodEnd' },
  });
}

export function describeSetup(setup: model.Setup): string {
  const subs = setup.subscriptions.map((s) => `${s.frequencyId}${s.coupons.length ? `[${s.coupons.join(',')}]` : ''}`).join(' ');
  return `${setup.currency ?? 'USD'}; subscriptions ${subs}; Monthly ${setup.rules.Monthly}, Yearly ${setup.rules.Yearly}`;
}

/**
 * A Draft customer with the setup's Draft subscriptions (coupons put on in order), a default card
 * whose charges are declined and a second card whose charges succeed; the model starts on `startDay`.
 */
export async function startRun(t: TestApp, startDay: number, setup: model.Setup = model.ONE_MONTHLY): Promise<Run> {
  if (!t.app.ctx.clock.testClocks)
    throw new Error('the ledger model runs on an app with test clocks (startTestApp({ app: { testClocks: true } }))');
  // An account per run: its own rate limits (1,000 requests a minute) and invoice numbers.
  const account = await t.newAccount();
  await setAccountTime(t, account.accountId, noonOf(startDay));
  const call: TestApp['call'] = (method, url, body, options) => t.call(method, url, body, { as: account, ...options });
  const created = await call('POST', '/v1/customers', {
    firstName: 'Model',
    lastName: 'Run',
    currency: setup.currency ?? 'USD',
    monthlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: setup.rules.Monthly },
    yearlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: setup.rules.Yearly },
  });
  expect(created.statusCode, created.body).toBe(200);
  const customerId = created.json().id as number;
  const subscriptionIds: number[] = [];
  for (const s of setup.subscriptions) {
    const sub = await call('POST', '/v1/subscriptions', { customerId, planFrequencyId: s.frequencyId });
    expect(sub.statusCode, sub.body).toBe(200);
    subscriptionIds.push(sub.json().id);
    if (s.coupons.length === 0) continue;
    const put = await call('PUT', '/v1/subscriptions', {
      ...(sub.json() as Record<string, unknown>),
      coupons: s.coupons.map((code) => ({ code })),
    });
    expect(put.statusCode, put.body).toBe(200);
  }
  const declining = await call('POST', '/v1/paymentmethods/creditcard', { customerId, cardNumber: '4000000000000341', ...card });
  expect(declining.statusCode, declining.body).toBe(200);
  const good = await call('POST', '/v1/paymentmethods/creditcard', {
    customerId,
    cardNumber: '4242424242424242',
    isDefault: false,
    ...card,
  });
  expect(good.statusCode, good.body).toBe(200);
  return {
    t,
    call,
    caller: callerOf(account),
    accountId: account.accountId,
    customerId,
    subscriptionIds,
    cardId: declining.json().id,
    goodCardId: good.json().id,
    m: model.newModel(startDay, setup),
    digits: model.DIGITS[setup.currency ?? 'USD'],
    log: [],
  };
}

/** Ends a run: the customer is cancelled so later runs' billing clocks leave it alone. */
export async function endRun(run: Run): Promise<void> {
  try {
    await cancelCustomer(run.t.app.ctx, run.caller, { customerId: run.customerId, cancellationOption: 'None' }, noonOf(run.m.today));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
  }
}

type Real = { ok: true } | { ok: false; status: number; keys: string[] };

async function service(work: () => Promise<unknown>): Promise<Real> {
  try {
    await work();
    return { ok: true };
  } catch (error) {
    const answered = clientError(error);
    if (answered) return { ok: false, status: answered.statusCode, keys: answered.errors.map((e) => e.Key) };
    throw error;
  }
}

async function viaApi(run: Run, body: Record<string, unknown> | undefined, path = '/v1/payments'): Promise<Real> {
  return answerOf(await run.call('POST', path, body), path);
}

/** Commands run per kind, accepted or refused (printed by the property test). */
export const coverage: Record<string, { ok: number; refused: number }> = {};

/** Runs one command on both sides, then checks everything. */
export async function step(run: Run, c: Command): Promise<void> {
  const { t, caller, customerId, m } = run;
  const ctx = t.app.ctx;
  const formatCents = (c: bigint) => formatMinor(c, run.digits);
  const day = m.today + (c.type === 'clock' || c.type === 'wait' ? c.days : 0);
  run.log.push(`${isoDay(day)} ${describeCommand(c)}`);
  await setAccountTime(t, run.accountId, noonOf(day));
  let expected: model.Outcome;
  let real: Real;
  /** A change to a frequency of another length (a new period starts, now, or at the renewal). */
  let frequencySwitch = false;
  const now = () => noonOf(m.today);
  switch (c.type) {
    case 'activate':
      expected = model.activate(m, !c.draft, c.purchases === true);
      real = await service(() =>
        activateCustomer(
          ctx,
          caller,
          {
            customerId,
            ...ACTIVATION_FLAGS,
            temporarilyDisableAutoPost: c.draft === true,
            activateAllDraftPurchases: c.purchases === true,
          },
          { preview: false, sideEffects: false, now: now() },
        ),
      );
      break;
    case 'purchase': {
      const unit = scaled(run, c.cents);
      expected = model.purchase(m, unit * BigInt(c.quantity), c.invoiceNow);
      real = await viaApi(
        run,
        { customerId, name: 'Model purchase', amount: formatCents(unit), quantity: c.quantity, invoiceNow: c.invoiceNow },
        '/v1/purchases',
      );
      break;
    }
    case 'clock':
      m.today += c.days;
      expected = model.clockTick(m);
      real = await service(() => runBillingClock(ctx, now()));
      break;
    case 'wait':
      m.today += c.days;
      expected = { ok: true };
      real = { ok: true };
      break;
    case 'pay': {
      const cents = scaled(run, c.cents);
      expected = model.pay(m, cents, c.mode);
      real = await viaApi(run, {
        customerId,
        amount: formatCents(cents),
        paymentMethod: 'Check',
        effectiveTimestamp: now().toISOString(),
        ...(c.mode === 'unallocated' ? { autoAllocate: false } : {}),
      });
      break;
    }
    case 'payExplicit': {
      // Posted invoices only: a draft owes nothing yet.
      const posted = m.invoices.flatMap((inv, i) => (inv.posted ? [i] : []));
      if (posted.length === 0) return void run.log.push('  (skipped: no posted invoice)');
      const parts = c.parts.map((p) => {
        const invoice = posted[p.pick % posted.length]!;
        const open = m.invoices[invoice]!.open;
        let cents = (open * BigInt(p.permille)) / 1000n;
        if (cents < 1n) cents = 1n;
        return { invoice, cents };
      });
      const sum = parts.reduce((a, p) => a + p.cents, 0n);
      const cents = c.short && sum > 1n ? sum - 1n : sum + (c.extraCents > 0 ? scaled(run, c.extraCents) : 0n);
      const ids = await invoiceIds(run);
      const allocations = parts.map((p) => ({ invoiceId: ids[p.invoice]!, amount: formatCents(p.cents) }));
      run.log.push(`  explicit ${formatCents(cents)}: ${allocations.map((a) => `#${a.invoiceId} ${a.amount}`).join(', ')}`);
      expected = model.payExplicit(m, cents, parts);
      real = await viaApi(run, {
        customerId,
        amount: formatCents(cents),
        paymentMethod: 'Cash',
        effectiveTimestamp: now().toISOString(),
        paymentAllocations: allocations,
      });
      break;
    }
    case 'declined': {
      const cents = scaled(run, c.cents);
      expected = model.declined(m, cents);
      real = await viaApi(run, {
        customerId,
        amount: formatCents(cents),
        paymentMethod: 'CreditCard',
        paymentMethodId: run.cardId,
        effectiveTimestamp: now().toISOString(),
      });
      break;
    }
    case 'refund': {
      if (m.payments.length === 0) return void run.log.push('  (skipped: no payment)');
      const index = c.pick % m.payments.length;
      const payment = m.payments[index]!;
      let cents = ((payment.amount - payment.refunded) * BigInt(c.permille)) / 1000n;
      if (cents < 1n) cents = 1n;
      if (c.extraCents > 0) cents += scaled(run, c.extraCents);
      const paymentIds = (
        await run.t.database.db.selectFrom('payments').select('id').where('customerId', '=', customerId).orderBy('id').execute()
      ).map((r) => Number(r.id));
      run.log.push(
        `  refund ${formatCents(cents)} of payment #${paymentIds[index]} (${payment.status} ${formatCents(payment.amount)}, refunded ${formatCents(payment.refunded)})`,
      );
      expected = model.refund(m, index, cents);
      real = await viaApi(run, { originalPaymentId: paymentIds[index], amount: formatCents(cents) }, '/v1/refunds');
      break;
    }
    case 'cancel':
      expected = model.cancel(m, c.option);
      real = await service(() => cancelCustomer(ctx, caller, { customerId, cancellationOption: c.option }, now()));
      break;
    case 'uncancel':
      expected = model.uncancel(m);
      real = await service(() => uncancelCustomer(ctx, caller, customerId, now()));
      break;
    case 'hold':
      expected = model.hold(m);
      real = await service(() => holdCustomer(ctx, caller, customerId, now()));
      break;
    case 'unhold':
      expected = model.unhold(m, c.option, c.prorate, !c.draft);
      real = await service(() =>
        unholdCustomer(
          ctx,
          caller,
          { customerId, serviceStartOption: c.option, prorate: c.prorate, ...(c.draft ? { temporarilyDisableAutoPost: true } : {}) },
          now(),
        ),
      );
      break;
    case 'postDraft': {
      const drafts = m.invoices.flatMap((inv, i) => (inv.posted ? [] : [i]));
      if (m.invoices.length === 0 || (drafts.length === 0 && !c.anyInvoice)) return void run.log.push('  (skipped: no draft)');
      const index = c.anyInvoice ? c.pick % m.invoices.length : drafts[c.pick % drafts.length]!;
      const id = (await invoiceIds(run))[index]!;
      run.log.push(`  post invoice #${id} (${m.invoices[index]!.posted ? 'posted' : 'draft'})`);
      expected = model.postDraft(m, index);
      real = await viaApi(run, undefined, `/v1/invoices/${id}/post`);
      // Posting what is not a draft: a conflict, whether answered 400 or 409.
      if (!expected.ok && !real.ok && real.status === 400) real = { ...real, status: 409 };
      break;
    }
    case 'race': {
      const open = m.invoices.flatMap((inv, i) => (inv.posted && inv.open > 0n ? [i] : []));
      if (open.length === 0) return void run.log.push('  (skipped: no invoice owing)');
      const index = open[c.pick % open.length]!;
      const owed = m.invoices[index]!.open;
      const id = (await invoiceIds(run))[index]!;
      const amount = formatCents(owed);
      run.log.push(`  ${c.requests} concurrent card payments of ${amount}, each allocated to #${id}`);
      const charges = async () =>
        Number(
          (
            await t.database.db
              .selectFrom('sandboxGatewayOperations')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('kind', '=', 'charge')
              .where('status', '=', 'succeeded')
              .executeTakeFirstOrThrow()
          ).n,
        );
      const chargedBefore = await charges();
      const body = {
        customerId,
        amount,
        paymentMethod: 'CreditCard',
        paymentMethodId: run.goodCardId,
        effectiveTimestamp: now().toISOString(),
        paymentAllocations: [{ invoiceId: id, amount }],
      };
      const answers = await Promise.all(Array.from({ length: c.requests }, () => run.call('POST', '/v1/payments', body)));
      const context = `${answers.map((a) => `${a.statusCode} ${a.body.slice(0, 200)}`).join('\n')}\nafter:\n${run.log.join('\n')}`;
      expect(
        answers.map((a) => a.statusCode).sort(),
        `exactly one of the concurrent payments is honoured, the others are 400; ${context}`,
      ).toEqual([200, ...Array(c.requests - 1).fill(400)]);
      for (const a of answers.filter((x) => x.statusCode === 400))
        expect(
          (a.json() as { Errors: Array<{ Key: string }> }).Errors.map((e) => e.Key),
          context,
        ).toContain('paymentAllocations[0].amount');
      expect((await charges()) - chargedBefore, `the card is charged once; ${context}`).toBe(1);
      expected = model.payExplicit(m, owed, [{ invoice: index, cents: owed }]);
      real = { ok: true };
      break;
    }
    case 'change': {
      const index = c.pick % m.subs.length;
      const id = run.subscriptionIds[index]!;
      const frequencyId =
        c.target === null ? undefined : c.target < 0 ? model.PRO_MONTHLY : model.FREQUENCIES[c.target % model.FREQUENCIES.length]!.id;
      const body = {
        ...(frequencyId !== undefined ? { planFrequencyId: frequencyId } : {}),
        ...(c.quantity !== null ? { quantities: { SEAT: c.quantity } } : {}),
        ...(c.timing !== null ? { timing: c.timing } : {}),
      };
      run.log.push(`  change subscription #${id} (s${index}): ${JSON.stringify(body)}`);
      const path = `/v1/subscriptions/${id}/changes`;
      const preview = c.preview ? await run.call('POST', path, { ...body, preview: true }) : null;
      const change = {
        ...(frequencyId !== undefined ? { frequencyId } : {}),
        ...(c.quantity !== null ? { quantity: c.quantity } : {}),
        ...(c.timing !== null ? { timing: c.timing } : {}),
      };
      const targetMonths = model.FREQUENCIES.find((f) => f.id === frequencyId)?.months;
      frequencySwitch = targetMonths !== undefined && targetMonths !== m.subs[index]!.freq.months;
      expected = model.changePlan(m, index, change);
      const res = await run.call('POST', path, body);
      real = answerOf(res, path);
      if (preview) {
        expect(preview.statusCode, `preview answers as the change does: ${preview.body}; after:\n${run.log.join('\n')}`).toBe(
          res.statusCode,
        );
        if (res.statusCode === 200) expectPreviewPosted(run, preview.json(), res.json());
      }
      if (res.statusCode === 200 && expected.ok) {
        const next = model.nextRenewalOf(m, index);
        const answered = res.json().nextRenewal as { date: string; amount: number | string };
        expect(
          { date: answered.date, amount: formatCents(minorOf(answered.amount, run.digits)) },
          `the change's next renewal (service vs model); after:\n${run.log.join('\n')}`,
        ).toEqual({ date: isoDay(next.date), amount: formatCents(next.amount) });
      }
      if (res.statusCode === 200 && expected.ok && 'timing' in expected)
        run.log.push(`  applied ${expected.timing}${expected.timing === 'now' ? `: invoice ${res.json().invoice?.invoiceAmount}` : ''}`);
      break;
    }
    case 'withdraw': {
      const index = c.pick % m.subs.length;
      const path = `/v1/subscriptions/${run.subscriptionIds[index]!}/changes/pending`;
      expected = model.withdrawPendingChange(m, index);
      real = answerOf(await run.call('DELETE', path), path);
      break;
    }
    case 'void':
    case 'writeOff': {
      if (m.invoices.length === 0) return void run.log.push('  (skipped: no invoice)');
      const index = c.pick % m.invoices.length;
      const inv = m.invoices[index]!;
      const id = (await invoiceIds(run))[index]!;
      run.log.push(`  ${c.type} invoice #${id} (${inv.posted ? (inv.closed?.kind ?? 'posted') : 'draft'}, owes ${formatCents(inv.open)})`);
      expected = c.type === 'void' ? model.voidInvoice(m, index) : model.writeOff(m, index);
      const path = `/v1/Invoices/${id}/${c.type}`;
      real = answerOf(await run.call('POST', path, c.type === 'void' ? undefined : { reason: 'ledger model' }), path);
      break;
    }
    case 'creditNote': {
      if (m.invoices.length === 0) return void run.log.push('  (skipped: no invoice)');
      const index = c.pick % m.invoices.length;
      const inv = m.invoices[index]!;
      const lineIndex = c.line % inv.lines.length;
      const line = inv.lines[lineIndex]!;
      const net = model.netOf(line);
      const amount = (net > 0n ? (net * BigInt(c.permille)) / 1000n : 0n) + scaled(run, c.extraCents);
      if (amount <= 0n) return void run.log.push('  (skipped: nothing to credit)');
      const id = (await invoiceIds(run))[index]!;
      const charges = (await run.call('GET', `/v1/Invoices/${id}`)).json().charges as Array<{ id: number }>;
      run.log.push(`  credit note on invoice #${id} line ${lineIndex} (net ${formatCents(net)}): ${formatCents(amount)}`);
      expected = model.creditNote(m, index, lineIndex, amount);
      const body = {
        invoiceId: id,
        lines: [{ invoiceLineId: charges[lineIndex]!.id, amount: formatCents(amount) }],
        reason: 'ledger model',
      };
      real = answerOf(await run.call('POST', '/v1/creditNotes', body), '/v1/creditNotes');
      break;
    }
  }
  const key =
    c.type === 'cancel'
      ? `cancel ${c.option}`
      : c.type === 'unhold'
        ? `unhold ${c.option.replace('ChargeFor', '').replace('MissedPeriods', '')}${c.prorate ? '+prorate' : ''}${c.draft ? ' draft' : ''}`
        : c.type === 'pay'
          ? `pay ${c.mode}`
          : c.type === 'activate' && c.draft
            ? 'activate draft'
            : c.type === 'change'
              ? changeKey(c, expected)
              : c.type === 'purchase'
                ? `purchase ${c.invoiceNow ? 'invoiceNow' : 'later'}`
                : c.type === 'activate' && c.purchases
                  ? 'activate with purchases'
                  : c.type;
  coverage[key] ??= { ok: 0, refused: 0 };
  const tally = coverage[key];
  if (expected.ok) tally.ok++;
  else tally.refused++;
  if (c.type === 'change') {
    // The calendar cases the campaign must reach: changes on a month's last day, on 29 February.
    const { month, day: dayOfMonth } = partsOf(m.today);
    const kind = c.target === null ? 'quantity' : c.quantity === null ? 'plan' : 'plan and quantity';
    const keys = [
      `change in ${m.currency}`,
      `change of ${kind}${frequencySwitch ? ' (frequency switch)' : ''}`,
      ...(month === 2 && dayOfMonth === 29 ? ['change on 29 February'] : partsOf(m.today + 1).day === 1 ? ['change on a month end'] : []),
      ...(!expected.ok ? [`change refused ${expected.status} ${expected.key}`] : []),
    ];
    for (const k of keys) {
      coverage[k] ??= { ok: 0, refused: 0 };
      if (expected.ok) coverage[k].ok++;
      else coverage[k].refused++;
    }
  }
  const context = () => `after:\n${run.log.join('\n')}`;
  expect(real.ok ? 'ok' : real.status, `outcome of ${describeCommand(c)}; ${JSON.stringify(real)}; ${context()}`).toBe(
    expected.ok ? 'ok' : expected.status,
  );
  if (!expected.ok && !real.ok && expected.key) expect(real.keys, context()).toContain(expected.key);
  await checkAll(run);
}

/** An API answer as an outcome: ok (200), or refused with its status and error keys (never a 5xx). */
function answerOf(res: Awaited<ReturnType<Run['call']>>, path: string): Real {
  if (res.statusCode === 200) return { ok: true };
  expect(res.statusCode, `${path}: ${res.body}`).toBeLessThan(500);
  const parsed = res.json() as { Errors?: Array<{ Key: string }> };
  return { ok: false, status: res.statusCode, keys: (parsed.Errors ?? []).map((e) => e.Key) };
}

/** The coverage key of a change: its timing (as applied, or as asked for when refused), previewed or not. */
function changeKey(c: Extract<Command, { type: 'change' }>, expected: model.Outcome & { timing?: model.Timing }): string {
  const timing = expected.ok ? expected.timing : (c.timing ?? 'default');
  return `change ${timing}${c.preview ? ' previewed' : ''}`;
}

/** A preview followed by the same change: the invoice posted is the one previewed, line by line (README "Plan changes"). */
function expectPreviewPosted(run: Run, preview: Record<string, any>, applied: Record<string, any>) {
  const where = `after:\n${run.log.join('\n')}`;
  expect(preview.nextRenewal, `the preview's next renewal is the change's; ${where}`).toEqual(applied.nextRenewal);
  if (applied.invoice === null) {
    expect(preview.invoice, `a scheduled change previews no invoice; ${where}`).toBeNull();
    expect(preview.subscription.pendingChange?.effectiveDate, where).toBe(applied.subscription.pendingChange?.effectiveDate);
    return;
  }
  const mu = (a: number | string) => formatMinor(minorOf(a, run.digits), run.digits);
  const lines = (charges: Array<Record<string, any>>) =>
    charges.map(
      (c) =>
        `${c.chargeType} ${c.productCode} ×${c.quantity} @${mu(c.unitPrice)} ${c.startServiceDate}..${c.endServiceDate} ${mu(c.amount)} taxable ${mu(c.taxableAmount)}${c.draftDiscounts.map((d: any) => ` −${d.name} ${mu(d.amount)}`).join('')}`,
    );
  const p = preview.invoice;
  const a = applied.invoice;
  expect(
    { lines: lines(p.draftCharges), subtotal: mu(p.subtotal), discount: mu(p.totalDiscount), taxes: mu(p.totalTaxes), total: mu(p.total) },
    `preview = posted, line by line; ${where}`,
  ).toEqual({
    lines: lines(a.charges),
    subtotal: mu(a.subtotal),
    discount: mu(a.totalDiscount),
    taxes: mu(a.totalTaxes),
    total: mu(a.invoiceAmount),
  });
  expect(preview.subscription.nextPeriodStartDate, `preview's period end; ${where}`).toBe(applied.subscription.nextPeriodStartDate);
}

async function invoiceIds(run: Run): Promise<number[]> {
  const rows = await run.t.database.db.selectFrom('invoices').select('id').where('customerId', '=', run.customerId).orderBy('id').execute();
  return rows.map((r) => Number(r.id));
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
/** The entries that close an invoice (issue 40). */
const closing = (entryType: string) => entryType === 'void' || entryType === 'write_off';

/** Invariants of the ledger (API and database), then agreement with the model. */
export async function checkAll(run: Run): Promise<void> {
  const { t, customerId, m } = run;
  const where = `after:\n${run.log.join('\n')}`;
  const centsOf = (a: number | string) => minorOf(a, run.digits);

  const [invRes, ovRes, payRes] = await Promise.all([
    run.call('GET', `/v1/Customers/${customerId}/Invoices?pageSize=1000`),
    run.call('GET', `/v1/customers/${customerId}/overview`),
    run.call('GET', `/v1/customers/${customerId}/payments?pageSize=1000`),
  ]);
  expect(invRes.statusCode, invRes.body).toBe(200);
  expect(ovRes.statusCode, ovRes.body).toBe(200);
  expect(payRes.statusCode, payRes.body).toBe(200);
  const invoices = (invRes.json() as Array<Record<string, any>>).sort((a, b) => a.id - b.id);
  const overview = ovRes.json() as Record<string, any>;
  const payments = (payRes.json() as Array<Record<string, any>>).sort((a, b) => a.id - b.id);
  const entries = await t.database.db.selectFrom('ledgerEntries').selectAll().where('customerId', '=', customerId).orderBy('id').execute();
  const entryIds = entries.map((e) => e.id);
  const allocations = entryIds.length
    ? await t.database.db.selectFrom('ledgerAllocations').selectAll().where('sourceEntryId', 'in', entryIds).execute()
    : [];
  const [subscriptions, coupons, products, pending] = await Promise.all([
    t.database.db
      .selectFrom('subscriptions')
      .select(['id', 'status', 'nextPeriodStart', 'planFrequencyId'])
      .where('customerId', '=', customerId)
      .orderBy('id')
      .execute(),
    t.database.db
      .selectFrom('subscriptionCoupons')
      .select(['subscriptionId', 'couponCode', 'periodsUsed'])
      .where('subscriptionId', 'in', run.subscriptionIds)
      .execute(),
    t.database.db
      .selectFrom('subscriptionProducts')
      .select(['subscriptionId', 'productCode', 'quantity'])
      .where('subscriptionId', 'in', run.subscriptionIds)
      .execute(),
    t.database.db.selectFrom('pendingPlanChanges').selectAll().where('subscriptionId', 'in', run.subscriptionIds).execute(),
  ]);
  const isDraft = (inv: Record<string, any>) => inv.status === 'Draft';

  // --- invariants, whatever the model says ---
  for (const inv of invoices) {
    const amount = centsOf(inv.invoiceAmount);
    const discountsOf = (c: any) => sum(c.draftDiscounts.map((d: any) => centsOf(d.amount)));
    expect(sum(inv.charges.map((c: any) => centsOf(c.amount))), `invoice ${inv.id}: subtotal = Σ line amounts; ${where}`).toBe(
      centsOf(inv.subtotal),
    );
    expect(sum(inv.charges.map(discountsOf)), `invoice ${inv.id}: totalDiscount = Σ line discounts; ${where}`).toBe(
      centsOf(inv.totalDiscount),
    );
    for (const c of inv.charges) {
      expect(centsOf(c.taxableAmount), `invoice ${inv.id}: taxable = amount − discounts; ${where}`).toBe(
        centsOf(c.amount) - discountsOf(c),
      );
      if (c.chargeType === 'Credit')
        expect(
          centsOf(c.amount) < 0n && c.draftDiscounts.length === 0,
          `invoice ${inv.id}: a credit line is negative, undiscounted; ${where}`,
        ).toBe(true);
      else expect(centsOf(c.taxableAmount) >= 0n, `invoice ${inv.id}: discounts never take a line below 0; ${where}`).toBe(true);
    }
    expect(
      sum(inv.charges.map((c: any) => centsOf(c.taxableAmount))) + centsOf(inv.totalTaxes),
      `invoice ${inv.id}: lines add up; ${where}`,
    ).toBe(amount);
    if (isDraft(inv)) continue;
    const outstanding = centsOf(inv.outstandingBalance);
    if (amount < 0n) {
      // A plan change's credits exceeding its charges: nothing is owed on it (its −amount is a credit entry).
      expect(outstanding, `invoice ${inv.id}: a negative invoice owes nothing; ${where}`).toBe(0n);
      continue;
    }
    // a void or write-off closed it by what it owed then (issue 40): not a payment
    const closedBy = sum(entries.filter((e) => closing(e.entryType) && e.invoiceId === inv.id).map((e) => centsOf(e.amount)));
    expect(
      centsOf(inv.totalPayments) + outstanding + closedBy,
      `invoice ${inv.id}: totalPayments + outstanding + closed = amount; ${where}`,
    ).toBe(amount);
    expect(
      outstanding >= 0n && outstanding <= amount,
      `invoice ${inv.id}: outstanding ${inv.outstandingBalance} within [0, ${inv.invoiceAmount}]; ${where}`,
    ).toBe(true);
  }
  expect(centsOf(overview.arBalance), `arBalance = Σ outstanding of posted invoices (a draft is not owed); ${where}`).toBe(
    sum(invoices.filter((i) => !isDraft(i)).map((i) => centsOf(i.outstandingBalance))),
  );
  expect(centsOf(overview.pendingCharges), `pendingCharges = Σ draft invoices; ${where}`).toBe(
    sum(invoices.filter(isDraft).map((i) => centsOf(i.invoiceAmount))),
  );
  expect(centsOf(overview.unallocatedPayments), `unallocatedPayments = Σ payments' unallocated; ${where}`).toBe(
    sum(payments.map((p) => centsOf(p.unallocatedAmount))),
  );
  for (const p of payments) {
    const allocated = sum(p.invoiceAllocations.map((a: any) => centsOf(a.amount)));
    if (p.status === 'Succeeded')
      expect(
        allocated + centsOf(p.unallocatedAmount) + centsOf(p.refundedAmount),
        `payment ${p.id}: allocated + unallocated + refunded = amount; ${where}`,
      ).toBe(centsOf(p.amount));
    else expect([allocated, centsOf(p.unallocatedAmount)], `failed payment ${p.id} holds nothing; ${where}`).toEqual([0n, 0n]);
  }
  const used = (type: string) => sum(entries.filter((e) => e.entryType === type).map((e) => centsOf(e.amount) - centsOf(e.openAmount)));
  for (const e of entries) {
    const open = centsOf(e.openAmount);
    expect(open >= 0n && open <= centsOf(e.amount), `entry ${e.id}: open within [0, amount]; ${where}`).toBe(true);
    const moved = sum(allocations.filter((a) => a.sourceEntryId === e.id || a.invoiceEntryId === e.id).map((a) => centsOf(a.amount)));
    expect(moved, `entry ${e.id} (${e.entryType}): allocations = amount − open; ${where}`).toBe(centsOf(e.amount) - open);
  }
  expect(
    used('invoice') + used('refund'),
    `conservation: allocated into invoices and refunds = payments, credits, voids and write-offs used; ${where}`,
  ).toBe(used('payment') + used('credit') + used('void') + used('write_off'));
  for (const e of entries.filter((x) => closing(x.entryType)))
    expect(invoices.find((i) => i.id === e.invoiceId)?.status, `entry ${e.id} (${e.entryType}) closed its invoice; ${where}`).toBe(
      e.entryType === 'void' ? 'Void' : 'WrittenOff',
    );
  expect(centsOf(overview.unallocatedCredits), `unallocatedCredits; ${where}`).toBe(
    sum(entries.filter((e) => e.entryType === 'credit').map((e) => centsOf(e.openAmount))),
  );

  // --- agreement with the model ---
  const fmt = (c: bigint) => formatMinor(c, run.digits);
  const subIndex = (id: number | null) => (id === null ? '?' : String(run.subscriptionIds.indexOf(id)));
  expect(overview.status, `customer status; ${where}`).toBe(m.status);
  expect(
    invoices.map((inv) => ({
      closed: inv.status === 'Void' ? 'void' : inv.status === 'WrittenOff' ? 'write_off' : null,
      draft: isDraft(inv),
      amount: fmt(centsOf(inv.invoiceAmount)),
      outstanding: isDraft(inv) ? '-' : fmt(centsOf(inv.outstandingBalance)),
      due: inv.dueTimestamp.slice(0, 10),
      lines: inv.charges.map(
        (c: any) =>
          `${c.chargeType} s${subIndex(c.subscriptionId)} ${c.startServiceDate}..${c.endServiceDate} ${fmt(centsOf(c.amount))}${c.draftDiscounts.map((d: any) => ` −${d.name} ${fmt(centsOf(d.amount))}`).join('')}`,
      ),
    })),
    `invoices (service vs model); ${where}`,
  ).toEqual(
    m.invoices.map((inv) => ({
      closed: inv.closed?.kind ?? null,
      draft: !inv.posted,
      amount: fmt(inv.amount),
      outstanding: inv.posted ? fmt(inv.open) : '-',
      due: isoDay(inv.due),
      lines: inv.lines.map(
        (l) =>
          `${l.kind} s${l.sub < 0 ? '?' : l.sub} ${isoDay(l.start)}..${isoDay(l.end)} ${fmt(l.amount)}${l.discounts.map((d) => ` −${d.name} ${fmt(d.amount)}`).join('')}`,
      ),
    })),
  );
  const purchases = await t.database.db
    .selectFrom('purchases')
    .select(['status', 'amount'])
    .where('customerId', '=', customerId)
    .orderBy('id')
    .execute();
  expect(
    purchases.map((p) => `${p.status} ${fmt(centsOf(p.amount))}`),
    `purchases (service vs model); ${where}`,
  ).toEqual(m.purchases.map((p) => `${p.status} ${fmt(p.amount)}`));
  expect(
    entries
      .filter((e) => e.entryType !== 'invoice')
      .map((e) => `${e.entryType} ${fmt(centsOf(e.amount))} open ${fmt(centsOf(e.openAmount))}`),
    `payments and credits in the ledger (service vs model); ${where}`,
  ).toEqual(m.sources.map((s) => `${s.kind} ${fmt(s.amount)} open ${fmt(s.open)}`));
  expect(
    payments.map(
      (p) =>
        `${p.status} ${fmt(centsOf(p.amount))} unallocated ${fmt(centsOf(p.unallocatedAmount))} refunded ${fmt(centsOf(p.refundedAmount))}`,
    ),
    `payments (service vs model); ${where}`,
  ).toEqual(
    m.payments.map(
      (p) =>
        `${p.status} ${fmt(p.amount)} unallocated ${fmt(p.source === undefined ? 0n : m.sources[p.source]!.open)} refunded ${fmt(p.refunded)}`,
    ),
  );
  expect(centsOf(overview.arBalance), `arBalance vs model; ${where}`).toBe(sum(m.invoices.map((i) => (i.posted ? i.open : 0n))));
  expect(centsOf(overview.pendingCharges), `pendingCharges = Σ draft invoices, not yet owed (vs model); ${where}`).toBe(
    sum(m.invoices.map((i) => (i.posted ? 0n : i.amount))),
  );
  expect(centsOf(overview.unallocatedCredits), `unallocatedCredits vs model; ${where}`).toBe(
    sum(m.sources.filter((s) => s.kind === 'credit').map((s) => s.open)),
  );
  expect(
    subscriptions.map((s) => ({
      status: s.status,
      plan: `${s.planFrequencyId} ${products
        .filter((p) => p.subscriptionId === s.id)
        .map((p) => `${p.productCode}×${Number(p.quantity)}`)
        .join(' ')}`,
      pending: pending
        .filter((p) => p.subscriptionId === s.id)
        .map(
          (p) =>
            `${p.planFrequencyId} SEAT×${Number((p.quantities as Record<string, string>).SEAT)} from ${isoDay(dayFromIso(String(p.effectiveDate)))}`,
        ),
      nextPeriodStart: s.nextPeriodStart ? isoDay(dayFromIso(String(s.nextPeriodStart))) : null,
      couponsUsed: coupons
        .filter((c) => c.subscriptionId === s.id)
        .map((c) => `${c.couponCode} ${c.periodsUsed}`)
        .sort(),
    })),
    `subscriptions (service vs model); ${where}`,
  ).toEqual(
    m.subs.map((s) => ({
      status: s.status,
      plan: `${s.freq.id} SEAT×${s.quantity}`,
      pending: s.pending ? [`${s.pending.freq.id} SEAT×${s.pending.quantity} from ${isoDay(s.pending.effective)}`] : [],
      nextPeriodStart: s.next === null ? null : isoDay(s.next),
      couponsUsed: s.coupons.map((c) => `${c.coupon.code} ${c.used}`).sort(),
    })),
  );
}

/** Runs a whole sequence (the regression examples use this). */
export async function runSequence(t: TestApp, startIso: string, commands: Command[], setup?: model.Setup): Promise<Run> {
  const run = await startRun(t, dayFromIso(startIso), setup);
  try {
    await checkAll(run);
    for (const c of commands) await step(run, c);
  } finally {
    await endRun(run);
  }
  return run;
}
