import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StripeStandIn, startStripeStandIn } from './stripe/index.js';
import { canonicalParameters, parseFormBody } from './stripe/form-body.js';
import { customerWithCard, failureOf, pay, sdkFor } from './stripe-sdk.js';

/** Stripe's wire protocol as the stand-in speaks it: keys, form bodies, idempotency, the error object. */
describe('the Stripe stand-in: protocol', () => {
  let standIn: StripeStandIn;
  let stripe: Stripe;

  beforeAll(async () => {
    standIn = await startStripeStandIn();
    stripe = sdkFor(standIn);
  });
  afterAll(() => standIn.close());

  it('reads brackets, indexed and appended arrays, and never lets a key reach the prototype', () => {
    const body = parseFormBody(
      'card[number]=4242&card[exp_month]=12&expand[]=a&expand[]=b&items[1]=y&items[0]=x&name=Ada+Lovelace&__proto__[admin]=1',
    );
    expect(body.card).toEqual({ number: '4242', exp_month: '12' });
    expect(body.expand).toEqual(['a', 'b']);
    expect(body.items).toEqual(['x', 'y']);
    expect(body.name).toBe('Ada Lovelace');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(canonicalParameters(parseFormBody('a=1&b=2'))).toBe(canonicalParameters(parseFormBody('b=2&a=1')));
    expect(canonicalParameters(parseFormBody('a=1'))).not.toBe(canonicalParameters(parseFormBody('a=2')));
  });

  it('refuses a missing or unknown key with 401 and Stripe error object, and takes the key by Basic auth too', async () => {
    const wrong = await failureOf(
      new Stripe('sk_test_wrong0000', { host: standIn.host, port: standIn.port, protocol: 'http' }).customers.create(),
    );
    expect([wrong.statusCode, wrong.type, wrong.rawType]).toEqual([401, 'StripeAuthenticationError', 'invalid_request_error']);
    expect(wrong.message).toBe('Invalid API Key provided: sk_test_*****0000');
    const none = await fetch(`${standIn.url}/v1/customers`, { method: 'POST' });
    expect(none.status).toBe(401);
    expect((await none.json()).error.message).toMatch(/^You did not provide an API key/);
    const basic = await fetch(`${standIn.url}/v1/customers`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${standIn.secretKey}:`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'email=basic%40example.com&metadata[source]=curl',
    });
    expect(basic.status).toBe(200);
    expect(await basic.json()).toMatchObject({ object: 'customer', email: 'basic@example.com', metadata: { source: 'curl' } });
  });

  it('refuses a JSON body and an unknown URL as Stripe does', async () => {
    const headers = { Authorization: `Bearer ${standIn.secretKey}` };
    const asJson = await fetch(`${standIn.url}/v1/customers`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(asJson.status).toBe(400);
    expect((await asJson.json()).error.type).toBe('invalid_request_error');
    const unknown = await fetch(`${standIn.url}/v1/subscriptions`, { method: 'POST', headers });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toMatch(/^Unrecognized request URL \(POST: \/v1\/subscriptions\)/);
  });

  it('keys every POST the SDK sends, replays the same key and parameters, and refuses the same key with other parameters', async () => {
    const first = await stripe.customers.create({ email: 'once@example.com' }, { idempotencyKey: 'customer-once' });
    const again = await stripe.customers.create({ email: 'once@example.com' }, { idempotencyKey: 'customer-once' });
    expect(again.id).toBe(first.id);
    const replays = standIn.requests.filter((request) => request.idempotencyKey === 'customer-once');
    expect(replays.map((request) => request.replayed)).toEqual([false, true]);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');

    const mismatch = await failureOf(stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'customer-once' }));
    expect([mismatch.statusCode, mismatch.type, mismatch.rawType]).toEqual([400, 'StripeIdempotencyError', 'idempotency_error']);
    const otherEndpoint = await failureOf(
      stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'customer-once' }),
    );
    expect(otherEndpoint.message).toMatch(/same endpoint/);

    await stripe.customers.create({ email: 'auto@example.com' });
    const sdkPosts = standIn.requests.filter(
      (request) => request.method === 'POST' && request.headers['user-agent']?.includes('NodeBindings'),
    );
    expect(sdkPosts.length).toBeGreaterThan(3);
    expect(sdkPosts.filter((request) => request.idempotencyKey === null)).toEqual([]);
  });

  it('keeps idempotency keys per secret key', async () => {
    const other = standIn.addAccount();
    const mine = await stripe.customers.create({ email: 'a@example.com' }, { idempotencyKey: 'shared-key' });
    const theirs = await sdkFor(standIn, other.secretKey).customers.create({ email: 'b@example.com' }, { idempotencyKey: 'shared-key' });
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.email).toBe('b@example.com');
    const hidden = await failureOf(sdkFor(standIn, other.secretKey).customers.retrieve(mine.id));
    expect(hidden.code).toBe('resource_missing');
  });

  it('replays a decline without charging twice, and saves nothing for a request that failed validation', async () => {
    const card = await customerWithCard(stripe, '4000000000000002');
    const declined = await failureOf(pay(stripe, card, 1500, 'eur', {}, { idempotencyKey: 'decline-once' }));
    const replayed = await failureOf(pay(stripe, card, 1500, 'eur', {}, { idempotencyKey: 'decline-once' }));
    expect(replayed.statusCode).toBe(402);
    expect([replayed.charge, replayed.payment_intent?.id]).toEqual([declined.charge, declined.payment_intent?.id]);
    const failures = standIn
      .events()
      .filter((event) => event.type === 'payment_intent.payment_failed' && event.data.object.id === declined.payment_intent?.id);
    expect(failures).toHaveLength(1);

    const invalid = await failureOf(
      stripe.customers.create({ email: 'x@example.com', metadata: { ['k'.repeat(41)]: 'v' } }, { idempotencyKey: 'fix-and-retry' }),
    );
    expect(invalid.statusCode).toBe(400);
    const fixed = await stripe.customers.create({ email: 'x@example.com' }, { idempotencyKey: 'fix-and-retry' });
    expect(fixed.id).toMatch(/^cus_/);
  });

  it('refuses raw card numbers from an account Stripe has not cleared for them', async () => {
    const uncleared = await startStripeStandIn({ rawCardData: false });
    try {
      const refused = await failureOf(
        sdkFor(uncleared).paymentMethods.create({ type: 'card', card: { number: '4242424242424242', exp_month: 1, exp_year: 2040 } }),
      );
      expect([refused.statusCode, refused.rawType]).toEqual([400, 'invalid_request_error']);
      expect(refused.message).toMatch(/raw-card-data/);
    } finally {
      await uncleared.close();
    }
  });
});
