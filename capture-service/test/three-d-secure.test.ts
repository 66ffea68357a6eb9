import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/**
 * 3-D Secure at the card-capture host (issue 37), with the sandbox's test cards of Stripe's numbers:
 * a capture whose card's bank asks the shopper to authenticate answers 202 with the challenge; the
 * shopper answers it on the sandbox issuer's page; completing the capture then stores the card (and
 * takes its first payment) once. A failed challenge stores and charges nothing.
 */
const ALWAYS = '4000002760003184';
const ONCE = '4000002500003155';
const THEN_NSF = '4000008260003178';

let t: CaptureTest;
beforeAll(async () => {
  t = await startCaptureTest();
});
afterAll(async () => t?.close());

async function cardsOf(customerId: number) {
  const res = await t.billing.call('GET', `/v1/customers/${customerId}/paymentMethods/creditCard`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

async function paymentsOf(customerId: number) {
  const res = await t.billing.call('GET', `/v1/customers/${customerId}/payments`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

/** A capture that the card's bank answers with a challenge: its 202 body. */
async function captureNeedingChallenge(customerId: number, overrides: Record<string, unknown> = {}) {
  const res = await t.post(t.params(customerId, { cardNumber: ALWAYS, ...overrides }));
  expect(res.statusCode, res.body).toBe(202);
  return res.json() as { id: string; status: string; challengeUrl: string; expiresTimestamp: string };
}

/** The shopper on the issuer's page: the page, then their answer. */
async function answerChallenge(challengeUrl: string, answer: 'complete' | 'fail') {
  const path = new URL(challengeUrl).pathname;
  const shown = await t.app.inject({ method: 'GET', url: path, remoteAddress: freshIp() });
  expect(shown.statusCode).toBe(200);
  expect(shown.headers['content-type']).toMatch(/^text\/html/);
  const answered = await t.app.inject({
    method: 'POST',
    url: path,
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `answer=${answer}`,
  });
  expect(answered.statusCode).toBe(200);
  return { shown: shown.body, answered: answered.body };
}

function complete(id: string) {
  return t.app.inject({ method: 'POST', url: `/api/paymentsv2/authentications/${id}`, remoteAddress: freshIp() });
}

describe('a card whose bank asks for authentication', () => {
  it('answers 202 with the challenge; stores nothing until the shopper has answered; then stores the card once', async () => {
    const customerId = await t.customer();
    const started = await captureNeedingChallenge(customerId);
    expect(started).toMatchObject({ status: 'RequiresAction', id: expect.stringMatching(/^cauth_[0-9a-f]{32}$/) });
    expect(started.challengeUrl).toMatch(/^http:\/\/[^/]+\/sandbox\/3ds\/sbxauth_[0-9a-f]{32}$/);
    expect(new Date(started.expiresTimestamp).getTime()).toBeGreaterThan(Date.now());
    expect(await cardsOf(customerId)).toEqual([]);

    const early = await complete(started.id);
    expect(early.statusCode).toBe(409);
    expect(errorsOf(early)[0]?.Code).toBe('authentication_pending');

    const { shown, answered } = await answerChallenge(started.challengeUrl, 'complete');
    expect(shown).toContain('3184');
    expect(shown).not.toContain(ALWAYS);
    expect(answered).toContain('renew-3ds');

    const done = await complete(started.id);
    expect(done.statusCode, done.body).toBe(200);
    const card = done.json();
    expect(card).toMatchObject({ customerId, maskedCardNumber: '************3184', isDefault: true });
    expect(card.externalCardId).toMatch(/^sbx_authalways_/);
    expect(done.headers['renew-payment-id']).toBeUndefined();
    // A retry (the answer was lost) gets the same card; nothing is stored twice.
    const again = await complete(started.id);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(card.id);
    expect(await cardsOf(customerId)).toEqual([expect.objectContaining({ id: card.id })]);
  });

  it('stores and charges nothing when the shopper fails the challenge, and says so each time it is asked', async () => {
    const customerId = await t.customer();
    const started = await captureNeedingChallenge(customerId, { paymentCollectOptions: { collectionAmount: '10.00' } });
    await answerChallenge(started.challengeUrl, 'fail');
    for (let i = 0; i < 2; i++) {
      const failed = await complete(started.id);
      expect(failed.statusCode).toBe(400);
      expect(errorsOf(failed)[0]?.Code).toBe('authentication_failed');
    }
    expect(await cardsOf(customerId)).toEqual([]);
    expect(await paymentsOf(customerId)).toEqual([]);
    // The challenge page takes one answer: completing it now changes nothing.
    const { answered } = await answerChallenge(started.challengeUrl, 'complete');
    expect(answered).toContain('already answered');
    expect((await complete(started.id)).statusCode).toBe(400);
  });

  it('takes the first payment with the card once authenticated, once however often completion is asked', async () => {
    const customerId = await t.customer();
    const started = await captureNeedingChallenge(customerId, { paymentCollectOptions: { collectionAmount: '10.00' } });
    expect(await paymentsOf(customerId)).toEqual([]);
    await answerChallenge(started.challengeUrl, 'complete');
    const answers = await Promise.all([complete(started.id), complete(started.id)]);
    const paid = answers.find((a) => a.statusCode === 200);
    expect(paid, answers.map((a) => a.body).join('\n')).toBeDefined();
    // The other one met the first mid-way (409, ask again) or after it (the same answer).
    for (const other of answers) expect([200, 409]).toContain(other.statusCode);
    const paymentId = Number(paid?.headers['renew-payment-id']);
    const again = await complete(started.id);
    expect(again.statusCode).toBe(200);
    expect(Number(again.headers['renew-payment-id'])).toBe(paymentId);
    const payments = await paymentsOf(customerId);
    expect(payments).toEqual([expect.objectContaining({ id: paymentId, amount: 10, status: 'Succeeded', paymentMethod: 'CreditCard' })]);
  });

  it('spends the capture token only when the card is stored, not when the challenge is shown', async () => {
    const customerId = await t.customer();
    const captureToken = await t.captureToken(customerId);
    const started = await captureNeedingChallenge(customerId, { captureToken });
    await answerChallenge(started.challengeUrl, 'complete');
    expect((await complete(started.id)).statusCode).toBe(200);
    const reused = await t.post(t.params(customerId, { captureToken }));
    expect(reused.statusCode).toBe(400);
    expect(errorsOf(reused)[0]?.Code).toBe('capture_token_invalid');
  });

  it('4000 0082 6000 3178: authenticates, then its first payment is declined: 400, no usable card, the failed payment recorded', async () => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { cardNumber: THEN_NSF, paymentCollectOptions: { collectionAmount: '7.00' } }));
    expect(res.statusCode, res.body).toBe(202);
    await answerChallenge(res.json().challengeUrl, 'complete');
    const declined = await complete(res.json().id);
    expect(declined.statusCode).toBe(400);
    expect(errorsOf(declined)).toContainEqual({ Key: 'declineCode', Value: 'insufficient_funds', Code: 'card_declined' });
    expect(await cardsOf(customerId)).toEqual([]);
    expect(await paymentsOf(customerId)).toEqual([expect.objectContaining({ status: 'Failed', declineCode: 'insufficient_funds' })]);
    expect((await complete(res.json().id)).statusCode).toBe(400);
  });
});

describe('nothing stuck', () => {
  it('a completion whose holder froze or died is taken over once its lease has passed', async () => {
    const customerId = await t.customer();
    const started = await captureNeedingChallenge(customerId, { paymentCollectOptions: { collectionAmount: '4.00' } });
    await answerChallenge(started.challengeUrl, 'complete');
    const db = t.billing.database.db;
    // As a request left it that claimed the completion and then stopped: Completing, its lease running.
    await db
      .updateTable('cardAuthentications')
      .set({ status: 'Completing', claimToken: 'frozen', claimedUntil: new Date(Date.now() + 60_000) })
      .where('publicId', '=', started.id)
      .execute();
    const held = await complete(started.id);
    expect(held.statusCode).toBe(409);
    expect(errorsOf(held)[0]?.Code).toBe('authentication_pending');
    // Its lease runs out: the next request completes it, once.
    await db
      .updateTable('cardAuthentications')
      .set({ claimedUntil: new Date(Date.now() - 1) })
      .where('publicId', '=', started.id)
      .execute();
    const done = await complete(started.id);
    expect(done.statusCode, done.body).toBe(200);
    expect(await paymentsOf(customerId)).toEqual([expect.objectContaining({ amount: 4, status: 'Succeeded' })]);
    // The frozen holder's late write is fenced: the row is the taker's.
    const row = await db.selectFrom('cardAuthentications').selectAll().where('publicId', '=', started.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'Succeeded', paymentId: Number(done.headers['renew-payment-id']) });
    expect(row.claimToken).not.toBe('frozen');
  });

  it('a challenge left unanswered past its expiry fails: nothing stored, and its page takes no answer', async () => {
    const customerId = await t.customer();
    const started = await captureNeedingChallenge(customerId);
    const actionId = new URL(started.challengeUrl).pathname.split('/').pop() ?? '';
    await t.billing.database.db
      .updateTable('sandboxAuthentications')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('id', '=', actionId)
      .execute();
    const { answered } = await answerChallenge(started.challengeUrl, 'complete');
    expect(answered).toContain('expired');
    const expired = await complete(started.id);
    expect(expired.statusCode).toBe(400);
    expect(errorsOf(expired)[0]?.Code).toBe('authentication_failed');
    expect(errorsOf(expired)[0]?.Value).toContain('authentication_expired');
    expect(await cardsOf(customerId)).toEqual([]);
    const row = await t.billing.database.db
      .selectFrom('cardAuthentications')
      .select(['status', 'declineCode'])
      .where('publicId', '=', started.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'Expired', declineCode: 'authentication_expired' });
  });
});

describe('charges on a card saved with authentication', () => {
  async function savedCard(cardNumber: string) {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { cardNumber }));
    expect(res.statusCode, res.body).toBe(202);
    await answerChallenge(res.json().challengeUrl, 'complete');
    const stored = await complete(res.json().id);
    expect(stored.statusCode).toBe(200);
    return { customerId, paymentMethodId: stored.json().id as number };
  }

  it('4000 0025 0000 3155: asked once, at the save; the merchant then charges it off-session with no challenge', async () => {
    const { customerId, paymentMethodId } = await savedCard(ONCE);
    const paid = await t.billing.call('POST', '/v1/payments', { customerId, amount: 12, paymentMethodId });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'Succeeded', amount: 12 });
  });

  it('4000 0027 6000 3184: asks on every charge, so an off-session one is declined authentication_required', async () => {
    const { customerId, paymentMethodId } = await savedCard(ALWAYS);
    const refused = await t.billing.call('POST', '/v1/payments', { customerId, amount: 12, paymentMethodId });
    expect(refused.statusCode).toBe(402);
    expect(errorsOf(refused)).toContainEqual({ Key: 'declineCode', Value: 'authentication_required', Code: 'card_declined' });
  });
});

describe('what cannot be completed', () => {
  it('answers 404 for an id no capture has, 400 for one of another form', async () => {
    const unknown = await complete(`cauth_${'0'.repeat(32)}`);
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)[0]?.Code).toBe('authentication_unknown');
    const malformed = await complete('not-an-id');
    expect(malformed.statusCode).toBe(400);
    expect(errorsOf(malformed)[0]).toMatchObject({ Key: 'id', Code: 'value_invalid' });
  });

  it('the private API refuses a card that asks for authentication, pointing to the capture host', async () => {
    const customerId = await t.customer();
    const res = await t.billing.call('POST', '/v1/paymentmethods/creditcard', {
      customerId,
      cardNumber: ALWAYS,
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]?.Code).toBe('authentication_required');
    expect(await cardsOf(customerId)).toEqual([]);
  });

  it('an unknown challenge page is a 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/sandbox/3ds/sbxauth_nothing', remoteAddress: freshIp() });
    expect(res.statusCode).toBe(404);
  });
});
