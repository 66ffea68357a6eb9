import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeCustomer } from '../../billing-service/test/helpers/api-fixtures.js';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { BASE_URL, testCatalog } from '../../billing-service/test/helpers/test-app.js';
import { buildCaptureApp } from '../src/app.js';
import { SiteverifyCaptcha } from '../src/captcha/siteverify-captcha.js';
import { errorsOf, SERVICE_SECRET, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/**
 * The red team's finding: with only the public key (which every shop hands out), anyone could put a
 * card that always declines on any Active customer and make it the default, so automatic collection
 * failed, then suspension, then cancellation. A capture token minted by the shop's server now says
 * which customer a card may go to; without one, nobody gets a card unless the account opts in (draftOnly: a Draft customer).
 */

let t: CaptureTest;
beforeAll(async () => {
  t = await startCaptureTest();
});
afterAll(async () => t?.close());

const DECLINES_EVERY_CHARGE = '4000000000000341';

async function cardsOf(customerId: number) {
  const res = await t.billing.call('GET', `/v1/customers/${customerId}/paymentMethods/creditCard`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<{ id: number; isDefault: boolean; maskedCardNumber: string }>;
}

/** An Active customer whose good card is the default. */
async function activeWithDefaultCard() {
  const { customerId } = await activeCustomer(t.billing);
  const card = await t.billing.call('POST', '/v1/paymentmethods/creditcard', {
    customerId,
    cardNumber: '4242424242424242',
    firstName: 'Ada',
    lastName: 'Lovelace',
    expirationMonth: 12,
    expirationYear: 30,
    cvv: '123',
  });
  expect(card.statusCode, card.body).toBe(200);
  return { customerId, defaultCardId: card.json().id as number };
}

describe('who the public key may put a card on', () => {
  it('cannot put a card on an Active customer, nor move its default, without a capture token', async () => {
    const { customerId, defaultCardId } = await activeWithDefaultCard();
    const attack = await t.post(t.params(customerId, { cardNumber: DECLINES_EVERY_CHARGE, makeDefault: true }));
    expect(attack.statusCode).toBe(400);
    expect(errorsOf(attack)[0]!.Key).toBe('captureToken');
    expect((await cardsOf(customerId)).map((c) => [c.id, c.isDefault])).toEqual([[defaultCardId, true]]);
  });

  it('puts the card on the customer a capture token names, default included, once', async () => {
    const { customerId, defaultCardId } = await activeWithDefaultCard();
    const captureToken = await t.captureToken(customerId);
    const first = await t.post(t.params(customerId, { cardNumber: '5555555555554444', makeDefault: true, captureToken }));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().isDefault).toBe(true);
    const again = await t.post(t.params(customerId, { cardNumber: '5555555555554444', makeDefault: true, captureToken }));
    expect(again.statusCode).toBe(400);
    expect(errorsOf(again)[0]!.Key).toBe('captureToken');
    expect((await cardsOf(customerId)).map((c) => [c.id, c.isDefault])).toEqual([
      [defaultCardId, false],
      [first.json().id, true],
    ]);
  });

  it('accepts the token under any casing and from the query string, and only for its own customer', async () => {
    const { customerId } = await activeWithDefaultCard();
    const other = (await activeCustomer(t.billing)).customerId;
    const captureToken = await t.captureToken(customerId);
    const wrong = await t.post(t.params(other, { CaptureToken: captureToken }));
    expect(wrong.statusCode).toBe(400);
    expect(errorsOf(wrong)[0]).toMatchObject({ Key: 'captureToken', Value: 'was issued for another customer' });
    const params = t.params(customerId);
    const viaQuery = await t.post(params, { url: `/api/paymentsv2?CAPTURETOKEN=${encodeURIComponent(captureToken)}` });
    expect(viaQuery.statusCode, viaQuery.body).toBe(200);
  });

  it('is not spent by a declined first payment', async () => {
    const { customerId } = await activeWithDefaultCard();
    const captureToken = await t.captureToken(customerId);
    const declined = await t.post(
      t.params(customerId, { cardNumber: DECLINES_EVERY_CHARGE, captureToken, paymentCollectOptions: { collectionAmount: '5.00' } }),
    );
    expect(declined.statusCode).toBe(400);
    expect(errorsOf(declined).map((e) => e.Key)).toContain('declineCode');
    const retry = await t.post(t.params(customerId, { captureToken, paymentCollectOptions: { collectionAmount: '5.00' } }));
    expect(retry.statusCode, retry.body).toBe(200);
  });

  it('refuses a capture without a token by default: the demo catalogue, like any that does not choose, says never', async () => {
    const demo = testCatalog();
    expect(demo.capture.tokenlessCapture).toBe('never');
    const app = await buildCaptureApp({
      db: t.billing.database.db,
      catalog: demo,
      rateLimitStore: new MemoryRateLimitStore(),
      captcha: new SiteverifyCaptcha({ url: t.stub.url, timeoutMs: 2000 }),
      recaptchaSecret: SERVICE_SECRET,
      publicBaseUrl: BASE_URL,
    });
    try {
      // A Draft customer, whose id anyone can guess (they are sequential): no first card for a stranger.
      const draft = await t.customer();
      const refused = await t.post(t.params(draft), { app });
      expect(refused.statusCode).toBe(400);
      expect(errorsOf(refused)[0]!.Key).toBe('captureToken');
      expect(await cardsOf(draft)).toEqual([]);
      const withToken = await t.post(t.params(draft, { captureToken: await t.captureToken(draft) }), { app });
      expect(withToken.statusCode, withToken.body).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('follows the account setting capture.tokenlessCapture', async () => {
    const never = await t.build({ capture: { tokenlessCapture: 'never' } });
    const draft = await t.customer();
    const refused = await t.post(t.params(draft), { app: never });
    expect(refused.statusCode).toBe(400);
    expect(errorsOf(refused)[0]!.Key).toBe('captureToken');
    const withToken = await t.post(t.params(draft, { captureToken: await t.captureToken(draft) }), { app: never });
    expect(withToken.statusCode, withToken.body).toBe(200);

    const any = await t.build({ capture: { tokenlessCapture: 'any' } });
    const { customerId } = await activeWithDefaultCard();
    const unsafe = await t.post(t.params(customerId, { makeDefault: true, cardNumber: '5555555555554444' }), { app: any });
    expect(unsafe.statusCode, unsafe.body).toBe(200);
    expect(unsafe.json().isDefault).toBe(true);
  });
});

describe('makeDefault', () => {
  async function paymentsOf(customerId: number) {
    const res = await t.billing.call('GET', `/v1/customers/${customerId}/payments`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as unknown[];
  }

  it('is refused, not ignored, when a capture without a token asks to move a default card (draftOnly)', async () => {
    const draft = await t.customer();
    const first = await t.post(t.params(draft));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().isDefault).toBe(true);
    for (const extra of [{}, { paymentCollectOptions: { collectionAmount: '5.00' } }]) {
      const takeover = await t.post(t.params(draft, { cardNumber: '5555555555554444', makeDefault: true, ...extra }));
      expect(takeover.statusCode, takeover.body).toBe(400);
      expect(errorsOf(takeover)).toEqual([
        { Key: 'makeDefault', Value: expect.stringContaining('capture token'), Code: 'capture_token_required' },
      ]);
    }
    // Nothing stored, nothing charged: the first card is still the only one, and the default.
    expect((await cardsOf(draft)).map((c) => [c.id, c.isDefault])).toEqual([[first.json().id, true]]);
    expect(await paymentsOf(draft)).toEqual([]);
    // Beside the default (makeDefault false or left out) the card is still welcome.
    const beside = await t.post(t.params(draft, { cardNumber: '5555555555554444', makeDefault: false }));
    expect(beside.statusCode, beside.body).toBe(200);
    expect(beside.json().isDefault).toBe(false);
  });

  it('is honoured without a token for a first card, which is the default regardless', async () => {
    const draft = await t.customer();
    const first = await t.post(t.params(draft, { makeDefault: true }));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().isDefault).toBe(true);
  });

  it('is honoured with a capture token: the new card takes the default, with a first payment too', async () => {
    const draft = await t.customer();
    const first = await t.post(t.params(draft));
    expect(first.statusCode, first.body).toBe(200);
    const captureToken = await t.captureToken(draft);
    const moved = await t.post(
      t.params(draft, {
        cardNumber: '5555555555554444',
        makeDefault: true,
        captureToken,
        paymentCollectOptions: { collectionAmount: '5.00' },
      }),
    );
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().isDefault).toBe(true);
    expect((await cardsOf(draft)).map((c) => [c.id, c.isDefault])).toEqual([
      [first.json().id, false],
      [moved.json().id, true],
    ]);
  });
});

describe('the first payment has a ceiling', () => {
  it("is capped by the token's maxCollectionAmount", async () => {
    const customerId = await t.customer();
    const captureToken = await t.captureToken(customerId, { maxCollectionAmount: 20 });
    const over = await t.post(t.params(customerId, { captureToken, paymentCollectOptions: { collectionAmount: '20.01' } }));
    expect(over.statusCode).toBe(400);
    expect(errorsOf(over)[0]).toMatchObject({ Key: 'paymentCollectOptions.collectionAmount', Value: 'must be at most 20' });
    const within = await t.post(t.params(customerId, { captureToken, paymentCollectOptions: { collectionAmount: '20.00' } }));
    expect(within.statusCode, within.body).toBe(200);
  });

  it('is capped by the account setting capture.maxCollectionAmount otherwise (default 10,000)', async () => {
    const customerId = await t.customer();
    const trillion = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '999999999999' } }));
    expect(trillion.statusCode).toBe(400);
    expect(errorsOf(trillion)[0]!.Key).toBe('paymentCollectOptions.collectionAmount');
    expect(await cardsOf(customerId)).toEqual([]);
    const lower = await t.build({ capture: { maxCollectionAmount: '50' } });
    expect((await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '50.01' } }), { app: lower })).statusCode).toBe(
      400,
    );
    expect((await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '10000' } }))).statusCode).toBe(200);
  });
});

describe('rate limits the public key cannot be used to exhaust', () => {
  it('does not count requests the billing API refuses against the key, and keeps the capture budget apart', async () => {
    const account = await t.billing.newAccount();
    await t.billing.database.db.updateTable('accounts').set({ rateLimitPerMinute: 5 }).where('id', '=', account.accountId).execute();
    const draft = await t.customer({}, account);
    // The public key sent to the billing API, from one address, far more often than the key's limit.
    for (let i = 0; i < 8; i++) {
      const refused = await t.billing.app.inject({
        method: 'GET',
        url: '/v1/customers',
        headers: { authorization: `Basic ${account.publicApiKey}` },
        remoteAddress: '203.0.113.66',
      });
      expect([401, 429]).toContain(refused.statusCode);
    }
    const capture = await t.post(t.params(draft, { publicApiKey: account.publicApiKey }));
    expect(capture.statusCode, capture.body).toBe(200);
    const privateCall = await t.billing.call('GET', '/v1/customers', undefined, { as: account });
    expect(privateCall.statusCode, privateCall.body).toBe(200);
  });
});
