import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode, ErrorItem } from '@renew/billing-service/http';
import { errorsOf, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

let t: CaptureTest;
let customerId: number;
beforeAll(async () => {
  t = await startCaptureTest();
  customerId = await t.customer();
});
afterAll(async () => t?.close());

const long = (n: number) => 'x'.repeat(n);

describe('every validation failure is 400 keyed on the canonical field, before the CAPTCHA token is spent', () => {
  const cases: Array<[string, Record<string, unknown>, string, RegExp | string, ErrorCode]> = [
    ['customerId missing', { customerId: undefined }, 'customerId', 'required', 'value_required'],
    ['customerId not a number', { customerId: 'abc' }, 'customerId', /customer id/, 'value_invalid'],
    ['customerId zero', { customerId: 0 }, 'customerId', /customer id/, 'value_invalid'],
    ['customerId a fraction', { customerId: 1.5 }, 'customerId', /customer id/, 'value_invalid'],
    ['cardNumber missing', { cardNumber: undefined }, 'cardNumber', 'required', 'value_required'],
    ['cardNumber with letters', { cardNumber: '4242abcd42424242' }, 'cardNumber', /only digits/, 'card_invalid'],
    ['cardNumber failing Luhn', { cardNumber: '4242424242424241' }, 'cardNumber', 'not a valid card number', 'card_invalid'],
    ['cardNumber too short', { cardNumber: '4242' }, 'cardNumber', 'not a valid card number', 'card_invalid'],
    ['cardNumber too long', { cardNumber: '4'.repeat(31) }, 'cardNumber', 'not a valid card number', 'card_invalid'],
    ['cardNumber as a JSON number', { cardNumber: 4242424242424242 }, 'cardNumber', /string/, 'card_invalid'],
    ['firstName missing', { firstName: undefined }, 'firstName', 'required', 'value_required'],
    ['lastName over 50', { lastName: long(51) }, 'lastName', /at most 50/, 'value_invalid'],
    ['expirationMonth 13', { expirationMonth: 13 }, 'expirationMonth', 'must be 1-12', 'card_invalid'],
    ['expirationMonth 0', { expirationMonth: '0' }, 'expirationMonth', 'must be 1-12', 'card_invalid'],
    ['expirationMonth not a number', { expirationMonth: 'July' }, 'expirationMonth', 'must be 1-12', 'card_invalid'],
    ['expirationMonth missing', { expirationMonth: undefined }, 'expirationMonth', 'required', 'value_required'],
    ['expirationYear with four digits', { expirationYear: 2030 }, 'expirationYear', 'must be two digits (YY)', 'card_invalid'],
    ['expirationYear "2030"', { expirationYear: '2030' }, 'expirationYear', 'must be two digits (YY)', 'card_invalid'],
    ['expirationYear in the past', { expirationYear: 20 }, 'expirationYear', 'the card has expired', 'card_expired'],
    ['cvv missing', { cvv: undefined }, 'cvv', 'required', 'value_required'],
    ['cvv as a JSON number', { cvv: 123 }, 'cvv', /string/, 'card_invalid'],
    ['cvv with letters', { cvv: '12a' }, 'cvv', 'must be 3 or 4 digits', 'card_invalid'],
    ['cvv too short', { cvv: '12' }, 'cvv', 'must be 3 or 4 digits', 'card_invalid'],
    ['cvv of 4 digits on a Visa', { cvv: '1234' }, 'cvv', 'must be 3 digits', 'card_invalid'],
    ['cvv of 3 digits on an Amex', { cardNumber: '378282246310005', cvv: '123' }, 'cvv', 'must be 4 digits', 'card_invalid'],
    ['address1 over 50', { address1: long(51) }, 'address1', /at most 50/, 'value_invalid'],
    ['address2 over 50', { address2: long(51) }, 'address2', /at most 50/, 'value_invalid'],
    ['city over 50', { city: long(51) }, 'city', /at most 50/, 'value_invalid'],
    ['postalZip over 10', { postalZip: '12345678901' }, 'postalZip', /at most 10/, 'value_invalid'],
    ['countryId not a number', { countryId: 'US' }, 'countryId', /country id/, 'value_invalid'],
    ['countryId unknown', { countryId: 998 }, 'countryId', /unknown country/, 'value_invalid'],
    ['stateId not a number', { stateId: 'NY' }, 'stateId', /state id/, 'value_invalid'],
    ['stateId unknown', { stateId: 84000001 }, 'stateId', /unknown state/, 'value_invalid'],
    ['stateId outside the country', { countryId: 124, stateId: 84000862 }, 'stateId', /not in Canada/, 'value_invalid'],
    ['makeDefault not a boolean', { makeDefault: 'yes' }, 'makeDefault', 'must be true or false', 'value_invalid'],
    ['email not an address', { email: 'not-an-address' }, 'email', /valid e-mail/, 'value_invalid'],
    ['clientIp not an address', { clientIp: '999.1.1.1' }, 'clientIp', /IPv4 or IPv6/, 'value_invalid'],
    ['riskToken over 1000', { riskToken: long(1001) }, 'riskToken', /at most 1000/, 'value_invalid'],
    [
      'collectionAmount zero',
      { paymentCollectOptions: { collectionAmount: '0' } },
      'paymentCollectOptions.collectionAmount',
      'must be more than 0',
      'value_invalid',
    ],
    [
      'collectionAmount negative',
      { paymentCollectOptions: { collectionAmount: -5 } },
      'paymentCollectOptions.collectionAmount',
      /decimal number/,
      'value_invalid',
    ],
    [
      'collectionAmount not a number',
      { paymentCollectOptions: { collectionAmount: 'ten' } },
      'paymentCollectOptions.collectionAmount',
      /decimal number/,
      'value_invalid',
    ],
    [
      'paymentCollectOptions not an object',
      { paymentCollectOptions: 'ten' },
      'paymentCollectOptions',
      /must be an object/,
      'value_invalid',
    ],
    ['recaptcha missing', { recaptcha: undefined }, 'recaptcha', 'required', 'value_required'],
    ['recaptcha empty', { recaptcha: '' }, 'recaptcha', 'required', 'value_required'],
  ];

  it.each(cases)('%s', async (_name, overrides, key, message, code) => {
    const params = t.params(customerId, overrides);
    const calls = t.stub.calls.length;
    const res = await t.post(params);
    expect(res.statusCode, res.body).toBe(400);
    const errors: ErrorItem[] = errorsOf(res);
    expect(errors.map((e) => [e.Key, e.Code])).toEqual([[key, code]]);
    if (typeof message === 'string') expect(errors[0]!.Value).toBe(message);
    else expect(errors[0]!.Value).toMatch(message);
    expect(t.stub.calls.length).toBe(calls);
    // The token was not spent: the corrected request goes through with it.
    if (params.recaptcha) {
      const fixed = await t.post({ ...t.params(customerId), recaptcha: params.recaptcha });
      expect(fixed.statusCode, fixed.body).toBe(200);
    }
  });

  it('reports the same failures for form fields, keyed the same', async () => {
    const res = await t.post(t.params(customerId, { expirationMonth: '13', cvv: 'abc', makeDefault: 'maybe' }), { encoding: 'form' });
    expect(res.statusCode).toBe(400);
    expect(
      errorsOf(res)
        .map((e) => e.Key)
        .sort(),
    ).toEqual(['cvv', 'expirationMonth', 'makeDefault']);
  });

  it('lists every problem at once', async () => {
    const res = await t.post(
      t.params(customerId, { cardNumber: undefined, firstName: undefined, expirationMonth: 0, recaptcha: undefined }),
    );
    expect(
      errorsOf(res)
        .map((e) => e.Key)
        .sort(),
    ).toEqual(['cardNumber', 'expirationMonth', 'firstName', 'recaptcha']);
  });

  it('refuses a form field given twice, and a name given twice with different values', async () => {
    const form = `${new URLSearchParams(t.params(customerId) as Record<string, string>).toString()}&cvv=999`;
    const twice = await t.app.inject({
      method: 'POST',
      url: '/api/paymentsv2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form,
    });
    expect(twice.statusCode).toBe(400);
    expect(errorsOf(twice)).toEqual([{ Key: 'cvv', Value: 'is given more than once', Code: 'value_invalid' }]);
    const cased = await t.post({ ...t.params(customerId), CardNumber: '5555555555554444' });
    expect(errorsOf(cased)).toEqual([
      { Key: 'cardNumber', Value: 'is given more than once, with different values', Code: 'value_invalid' },
    ]);
    const query = await t.post(t.params(customerId), { url: '/api/paymentsv2?cardNumber=5555555555554444' });
    expect(errorsOf(query)).toEqual([
      { Key: 'cardNumber', Value: 'is given more than once, with different values', Code: 'value_invalid' },
    ]);
  });

  it('refuses a JSON body naming one property twice, even with the same value, before the CAPTCHA token is spent', async () => {
    const params = t.params(customerId);
    const calls = t.stub.calls.length;
    const json = JSON.stringify(params);
    const cases: Array<[payload: string, key: string]> = [
      [`{"cvv":${JSON.stringify(params.cvv)},${json.slice(1)}`, 'cvv'],
      [`{"cardNumber":"5555555555554444",${json.slice(1)}`, 'cardNumber'],
      [
        `{"paymentCollectOptions":{"collectionAmount":"1.00","collectionAmount":"900.00"},${json.slice(1)}`,
        'paymentCollectOptions.collectionAmount',
      ],
    ];
    for (const [payload, key] of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/api/paymentsv2', headers: { 'content-type': 'application/json' }, payload });
      expect(res.statusCode, key).toBe(400);
      expect(errorsOf(res), key).toEqual([{ Key: key, Value: 'is given more than once in the same object', Code: 'value_invalid' }]);
    }
    expect(t.stub.calls.length).toBe(calls);
    const fixed = await t.post(params);
    expect(fixed.statusCode, fixed.body).toBe(200);
  });

  it('refuses bodies that are not a JSON object or form fields', async () => {
    const array = await t.app.inject({
      method: 'POST',
      url: '/api/paymentsv2',
      headers: { 'content-type': 'application/json' },
      payload: '[1,2]',
    });
    expect(array.statusCode).toBe(400);
    expect(errorsOf(array)[0]!.Value).toMatch(/JSON object/);
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/paymentsv2',
      headers: { 'content-type': 'application/json' },
      payload: '{"cardNumber":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(errorsOf(malformed)[0]!.Value).toBe('body is not valid JSON');
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/paymentsv2',
      headers: { 'content-type': 'text/plain' },
      payload: 'cardNumber=1',
    });
    expect(text.statusCode).toBe(415);
    expect(errorsOf(text)[0]!.Value).toMatch(/x-www-form-urlencoded or application\/json/);
    const multipart = await t.app.inject({
      method: 'POST',
      url: '/api/paymentsv2',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x--',
    });
    expect(multipart.statusCode).toBe(415);
  });

  it('refuses a body over 16 KiB with 413', async () => {
    const res = await t.post(t.params(customerId, { riskToken: long(20_000) }));
    expect(res.statusCode).toBe(413);
  });
});

describe("the account's settings", () => {
  it('require riskToken, clientIp and email with the built-in processing', async () => {
    const res = await t.post(t.params(customerId, { riskToken: undefined, clientIp: '', email: undefined }), { encoding: 'form' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual(['riskToken', 'clientIp', 'email']);
    expect(errorsOf(res)[0]!.Value).toMatch(/built-in payment processing/);
  });

  it('do not require them with external processing', async () => {
    const external = await t.build({ capture: { processing: 'external' } });
    const res = await t.post(t.params(customerId, { riskToken: undefined, clientIp: undefined, email: undefined }), { app: external });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().email).toBeNull();
  });

  it('require the address with address verification, and store it', async () => {
    const verifying = await t.build({ capture: { addressVerification: true } });
    const missing = await t.post(t.params(customerId), { app: verifying });
    expect(missing.statusCode).toBe(400);
    expect(errorsOf(missing).map((e) => e.Key)).toEqual(['address1', 'city', 'countryId', 'postalZip']);
    expect(errorsOf(missing)[0]!.Value).toMatch(/verifies card addresses/);
    const address = {
      address1: '1 Main St',
      address2: 'Suite 5',
      city: 'Albany',
      countryId: '840',
      stateId: '84000862',
      postalZip: '12207',
    };
    const res = await t.post(t.params(customerId, address), { app: verifying, encoding: 'form' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      address1: '1 Main St',
      address2: 'Suite 5',
      city: 'Albany',
      countryId: 840,
      country: 'United States of America',
      stateId: 84000862,
      postalZip: '12207',
    });
    expect(res.json().state).toMatch(/New York/);
  });
});

describe('text the billing API could not store', () => {
  it('refuses a lone surrogate or a NUL in any parameter, keyed on it', async () => {
    for (const [field, value] of [
      ['firstName', 'Ada\ud800'],
      ['lastName', 'Love\u0000lace'],
    ] as const) {
      const res = await t.post(t.params(customerId, { [field]: value }));
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)[0]!.Key).toBe(field);
    }
  });
});
