import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateByCode } from '../../src/geo/countries.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { newCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const ONTARIO = stateByCode('CA-ON')!.id;
const NEW_YORK = stateByCode('US-NY')!.id;

describe('addresses', () => {
  it('creates a billing address with country and state names, and reads it back', async () => {
    const customerId = await newCustomer(t);
    const res = await t.call('POST', '/v1/Addresses', {
      customerAddressPreferenceId: customerId,
      addressType: 'Billing',
      companyName: 'Maple Ltd',
      line1: '1 Front St',
      line2: 'Suite 4',
      countryId: 124,
      stateId: ONTARIO,
      city: 'Toronto',
      postalZip: 'M5J 2N8',
    });
    expect(res.statusCode, res.body).toBe(200);
    const address = res.json();
    expect(address).toMatchObject({
      customerAddressPreferenceId: customerId,
      addressType: 'Billing',
      countryId: 124,
      country: 'Canada',
      stateId: ONTARIO,
      state: 'Ontario',
      city: 'Toronto',
      postalZip: 'M5J 2N8',
      valid: true,
      uri: `https://billing.test/v1/Addresses/${address.id}`,
    });
    expect((await t.call('GET', `/v1/addresses/${address.id}`)).json()).toEqual(address);
  });

  it('accepts the ISO 3166-2 code in place of the state id, and infers the country from it', async () => {
    const customerId = await newCustomer(t);
    const res = await t.call('POST', '/v1/Addresses', {
      customerAddressPreferenceId: customerId,
      addressType: 'Shipping',
      stateId: 'US-NY',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ countryId: 840, country: 'United States of America', stateId: NEW_YORK, state: 'New York' });
  });

  it('refuses a second billing address for a customer: update instead', async () => {
    const customerId = await newCustomer(t);
    const body = { customerAddressPreferenceId: customerId, addressType: 'Billing', line1: 'First' };
    expect((await t.call('POST', '/v1/Addresses', body)).statusCode).toBe(200);
    const second = await t.call('POST', '/v1/Addresses', { ...body, line1: 'Second' });
    expect(second.statusCode).toBe(400);
    expect(errorsOf(second)).toEqual([
      { Key: 'Api Error', Value: 'only one billing address per customer; update the existing one instead', Code: 'value_taken' },
    ]);
  });

  it.each([
    [{ countryId: 9999 }, 'countryId'],
    [{ countryId: 840, stateId: ONTARIO }, 'stateId'],
    [{ stateId: 'XX-ZZ' }, 'stateId'],
    [{ line1: 'l'.repeat(61) }, 'line1'],
    [{ line2: 'l'.repeat(61) }, 'line2'],
    [{ city: 'c'.repeat(51) }, 'city'],
    [{ postalZip: '12345678901' }, 'postalZip'],
    [{ companyName: 'c'.repeat(256) }, 'companyName'],
    [{ addressType: 'Home' }, 'addressType'],
    [{ addressType: undefined }, 'addressType'],
    [{ customerAddressPreferenceId: undefined }, 'customerAddressPreferenceId'],
  ])('refuses %j with 400 keyed on %s', async (change, key) => {
    const customerId = await newCustomer(t);
    const res = await t.call('POST', '/v1/Addresses', { customerAddressPreferenceId: customerId, addressType: 'Billing', ...change });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toContain(key);
  });

  it('replaces an address with PUT, omitted lines becoming null', async () => {
    const customerId = await newCustomer(t);
    const created = (
      await t.call('POST', '/v1/Addresses', {
        customerAddressPreferenceId: customerId,
        addressType: 'Billing',
        line1: 'Old',
        line2: 'Keep?',
        countryId: 124,
      })
    ).json();
    const res = await t.call('PUT', '/v1/Addresses', {
      id: created.id,
      line1: 'New',
      countryId: 840,
      stateId: 'NY',
      customerAddressPreferenceId: customerId,
      addressType: 'Billing',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: created.id, line1: 'New', line2: null, countryId: 840, stateId: NEW_YORK, state: 'New York' });
    const moved = await t.call('PUT', '/v1/Addresses', { id: created.id, addressType: 'Shipping' });
    expect(moved.statusCode).toBe(400);
    expect(errorsOf(moved)[0]!.Key).toBe('addressType');
  });

  it("answers 404 for unknown addresses and other accounts' addresses", async () => {
    const customerId = await newCustomer(t);
    const created = (await t.call('POST', '/v1/Addresses', { customerAddressPreferenceId: customerId, addressType: 'Billing' })).json();
    const other = await t.newAccount();
    expect((await t.call('GET', '/v1/Addresses/999999')).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/Addresses/${created.id}`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('PUT', '/v1/Addresses', { id: created.id }, { as: other })).statusCode).toBe(404);
    expect(
      (await t.call('POST', '/v1/Addresses', { customerAddressPreferenceId: customerId, addressType: 'Shipping' }, { as: other }))
        .statusCode,
    ).toBe(404);
  });

  it('maps the customer-create billing and shipping (2-letter codes) onto the same rows', async () => {
    const customerId = await newCustomer(t, {
      billing: { line1: '9 King St', country: 'CA', state: 'ON', city: 'Toronto' },
      shipping: { country: 'US', state: 'NY' },
    });
    const prefs = (await t.call('GET', `/v1/customerAddressPreferences/${customerId}`)).json();
    expect(prefs.billingAddress).toMatchObject({
      line1: '9 King St',
      countryId: 124,
      stateId: ONTARIO,
      state: 'Ontario',
      addressType: 'Billing',
    });
    expect(prefs.shippingAddress).toMatchObject({ countryId: 840, stateId: NEW_YORK, addressType: 'Shipping' });
  });
});

describe('address preferences', () => {
  it("embed the customer's address rows", async () => {
    const customerId = await newCustomer(t, {
      addressPreference: { contactName: 'Pat', shippingInstructions: 'Back door', useBillingAddressAsShippingAddress: true },
    });
    const empty = (await t.call('GET', `/v1/customerAddressPreferences/${customerId}`)).json();
    expect(empty).toEqual({
      contactName: 'Pat',
      shippingInstructions: 'Back door',
      useBillingAddressAsShippingAddress: true,
      billingAddress: null,
      shippingAddress: null,
      id: customerId,
      uri: `https://billing.test/v1/customerAddressPreferences/${customerId}`,
    });
    const address = (
      await t.call('POST', '/v1/Addresses', { customerAddressPreferenceId: customerId, addressType: 'Billing', line1: 'Here' })
    ).json();
    const withAddress = (await t.call('GET', `/v1/customerAddressPreferences/${customerId}`)).json();
    expect(withAddress.billingAddress).toEqual(address);
  });

  it('are replaced by PUT, which also saves embedded addresses', async () => {
    const customerId = await newCustomer(t);
    const res = await t.call('PUT', '/v1/CustomerAddressPreferences', {
      id: customerId,
      contactName: 'Sam',
      shippingInstructions: null,
      useBillingAsShipping: false,
      billingAddress: { line1: '1 Bill St', countryId: 124, stateId: 'CA-ON' },
      shippingAddress: { line1: '2 Ship St', countryId: 840 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const prefs = res.json();
    expect(prefs).toMatchObject({ contactName: 'Sam', useBillingAddressAsShippingAddress: false });
    expect(prefs.billingAddress).toMatchObject({ line1: '1 Bill St', state: 'Ontario' });
    expect(prefs.shippingAddress).toMatchObject({ line1: '2 Ship St', country: 'United States of America' });
    // A second PUT updates the same rows instead of adding addresses.
    const again = await t.call('PUT', '/v1/CustomerAddressPreferences', {
      ...prefs,
      billingAddress: { ...prefs.billingAddress, line1: '3 Bill St' },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().billingAddress).toMatchObject({ id: prefs.billingAddress.id, line1: '3 Bill St' });
    const rows = await t.database.db.selectFrom('addresses').select('id').where('customerId', '=', customerId).execute();
    expect(rows).toHaveLength(2);
  });

  it('refuses null for useBillingAddressAsShippingAddress with a conversion error on that field', async () => {
    const customerId = await newCustomer(t);
    const res = await t.call('PUT', '/v1/CustomerAddressPreferences', { id: customerId, useBillingAddressAsShippingAddress: null });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      { Key: 'useBillingAddressAsShippingAddress', Value: 'conversion error: must be true or false, not null', Code: 'value_invalid' },
    ]);
  });

  it('keep the stored useBillingAddressAsShippingAddress when a PUT leaves it out', async () => {
    const customerId = await newCustomer(t, { addressPreference: { useBillingAddressAsShippingAddress: true } });
    const res = await t.call('PUT', '/v1/CustomerAddressPreferences', { id: customerId, contactName: 'Kept flag' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ contactName: 'Kept flag', useBillingAddressAsShippingAddress: true });
    expect((await t.call('GET', `/v1/customerAddressPreferences/${customerId}`)).json().useBillingAddressAsShippingAddress).toBe(true);
    // An explicit false still changes it, and leaving it out again keeps false.
    expect(
      (await t.call('PUT', '/v1/CustomerAddressPreferences', { id: customerId, useBillingAsShipping: false })).json()
        .useBillingAddressAsShippingAddress,
    ).toBe(false);
    expect((await t.call('PUT', '/v1/CustomerAddressPreferences', { id: customerId })).json().useBillingAddressAsShippingAddress).toBe(
      false,
    );
  });

  it('refuse the two names of the flag with different values, and an embedded address of the other type or customer', async () => {
    const customerId = await newCustomer(t);
    const other = await newCustomer(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ useBillingAddressAsShippingAddress: true, useBillingAsShipping: false }, 'useBillingAsShipping'],
      [{ useBillingAsShipping: null }, 'useBillingAsShipping'],
      [{ billingAddress: { line1: 'x', addressType: 'Shipping' } }, 'billingAddress.addressType'],
      [{ shippingAddress: { line1: 'x', customerAddressPreferenceId: other } }, 'shippingAddress.customerAddressPreferenceId'],
    ];
    for (const [change, key] of cases) {
      const res = await t.call('PUT', '/v1/CustomerAddressPreferences', { id: customerId, ...change });
      expect(res.statusCode, `${JSON.stringify(change)}: ${res.body}`).toBe(400);
      expect(errorsOf(res).map((e) => e.Key)).toEqual([key]);
    }
    const prefs = (await t.call('GET', `/v1/customerAddressPreferences/${customerId}`)).json();
    expect(prefs).toMatchObject({ billingAddress: null, shippingAddress: null });
    // The GET object with its addresses goes back as it is.
    const saved = (await t.call('PUT', '/v1/CustomerAddressPreferences', { id: customerId, billingAddress: { line1: '1 A St' } })).json();
    const again = await t.call('PUT', '/v1/CustomerAddressPreferences', saved);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(saved);
  });

  it('key embedded address errors by their path', async () => {
    const customerId = await newCustomer(t);
    const res = await t.call('PUT', '/v1/CustomerAddressPreferences', {
      id: customerId,
      useBillingAddressAsShippingAddress: true,
      shippingAddress: { countryId: 124, stateId: 'US-NY' },
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('shippingAddress.stateId');
  });

  it('answer 404 for unknown customers', async () => {
    expect((await t.call('GET', '/v1/customerAddressPreferences/999999')).statusCode).toBe(404);
    expect(
      (await t.call('PUT', '/v1/CustomerAddressPreferences', { id: 999999, useBillingAddressAsShippingAddress: true })).statusCode,
    ).toBe(404);
  });

  it('support the checkout flow through the API alone', async () => {
    const created = await t.call('POST', '/v1/customers', { firstName: 'Checkout', lastName: 'Shopper', primaryEmail: 'shop@example.com' });
    const customerId = created.json().id;
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    const updated = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, term: 'Net0', useCustomerBillingAddress: true });
    expect(updated.statusCode, updated.body).toBe(200);
    const address = await t.call('POST', '/v1/Addresses', {
      customerAddressPreferenceId: customerId,
      addressType: 'Billing',
      line1: '5 Main St',
      countryId: 124,
      stateId: 'CA-ON',
      city: 'Ottawa',
      postalZip: 'K1A 0A1',
    });
    expect(address.statusCode, address.body).toBe(200);
    const prefs = (await t.call('GET', `/v1/customerAddressPreferences/${customerId}`)).json();
    expect(prefs.billingAddress).toEqual(address.json());
  });
});
