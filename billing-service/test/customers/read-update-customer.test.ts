import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { customerTestCatalog, everyFieldCustomer } from './customer-fixtures.js';
import { createCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: customerTestCatalog() });
});
afterAll(async () => t?.close());

const put = (body: unknown, as?: TestAccount) => t.call('PUT', '/v1/customers', body, as ? { as } : {});
const get = async (id: number) => {
  const res = await t.call('GET', `/v1/customers/${id}`);
  expect(res.statusCode).toBe(200);
  return res.json();
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /v1/customers/{id}', () => {
  it('returns the customer as created', async () => {
    const created = await createCustomer(t, { firstName: 'Reading', lastName: 'Room', title: 'Ms' });
    const read = await get(created.id);
    expect(read).toEqual(created);
    expect(read).toMatchObject({ firstName: 'Reading', lastName: 'Room', title: 'Ms', status: 'Draft' });
  });

  it('answers 404 with an Api Error for an id nobody has', async () => {
    const res = await t.call('GET', '/v1/customers/987654');
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);
  });

  it('answers 404, not 500, for an id beyond any stored id', async () => {
    const res = await t.call('GET', '/v1/customers/99999999999');
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)[0]!.Key).toBe('Api Error');
  });

  it('answers 400 keyed customerId for an id that is not a number', async () => {
    const res = await t.call('GET', '/v1/customers/abc');
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('customerId');
  });

  it('answers 404 for a customer of another account', async () => {
    const other = await t.newAccount();
    const theirs = await createCustomer(t, { firstName: 'Theirs' }, other);
    const res = await t.call('GET', `/v1/customers/${theirs.id}`);
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)[0]!.Key).toBe('Api Error');
  });

  it('ignores path casing and a trailing slash', async () => {
    const created = await createCustomer(t, { firstName: 'Casey' });
    for (const path of [`/v1/Customers/${created.id}`, `/v1/customers/${created.id}/`, `/V1/CUSTOMERS/${created.id}/`]) {
      const res = await t.call('GET', path);
      expect(res.statusCode, path).toBe(200);
      expect(res.json()).toMatchObject({ id: created.id, firstName: 'Casey' });
    }
  });
});

describe('GET of the uris the customer embeds', () => {
  it('answers customerReference, each sales tracking code and customerAcquisition as embedded', async () => {
    const created = await createCustomer(t, everyFieldCustomer());
    const embedded = [created.customerReference, ...created.customerReference.salesTrackingCodes, created.customerAcquisition];
    expect(created.customerReference.salesTrackingCodes).toHaveLength(2);
    for (const object of embedded) {
      const res = await t.call('GET', new URL(object.uri).pathname);
      expect(res.statusCode, object.uri).toBe(200);
      expect(res.json()).toEqual(object);
    }
  });

  it('answers them for a customer without references too, and 404 for a code it does not have', async () => {
    const created = await createCustomer(t, {});
    expect((await t.call('GET', new URL(created.customerReference.uri).pathname)).json()).toEqual(created.customerReference);
    expect((await t.call('GET', new URL(created.customerAcquisition.uri).pathname)).json()).toEqual(created.customerAcquisition);
    const missing = await t.call('GET', `/v1/customers/${created.id}/customerReference/salesTrackingCodes/1`);
    expect(missing.statusCode).toBe(404);
    expect(errorsOf(missing)[0]!.Key).toBe('Api Error');
  });

  it("answers 404 for another account's customer and for an id nobody has", async () => {
    const other = await t.newAccount();
    const theirs = await createCustomer(t, everyFieldCustomer(), other);
    for (const id of [theirs.id, 987654, 99999999999]) {
      for (const tail of ['customerReference', 'customerReference/salesTrackingCodes/1', 'customerAcquisition']) {
        const res = await t.call('GET', `/v1/customers/${id}/${tail}`);
        expect(res.statusCode, `${id}/${tail}`).toBe(404);
        errorsOf(res);
      }
    }
  });
});

describe('PUT /v1/customers', () => {
  it('replaces the whole customer: omitted fields become null, reference and acquisition are cleared', async () => {
    const created = await createCustomer(t, everyFieldCustomer());
    const res = await put({ id: created.id, status: 'Draft', firstName: 'Augusta', lastName: 'King' });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json();
    expect(updated).toMatchObject({
      id: created.id,
      status: 'Draft',
      currency: 'USD',
      firstName: 'Augusta',
      lastName: 'King',
      title: null,
      middleName: null,
      suffix: null,
      companyName: null,
      primaryEmail: null,
      primaryPhone: null,
      secondaryEmail: null,
      secondaryPhone: null,
      reference: null,
      crmId: null,
      crmAccountType: null,
      parentId: null,
      accountingId: null,
      accountingLatchType: null,
      marketingId: null,
      // read-only once set: a PUT without it keeps it
      portalUserName: created.portalUserName,
    });
    expect(updated.customerReference).toMatchObject({ reference1: null, reference2: null, reference3: null, salesTrackingCodes: [] });
    expect(updated.customerAcquisition).toMatchObject({
      adContent: null,
      campaign: null,
      keyword: null,
      landingPage: null,
      medium: null,
      source: null,
    });
    expect(await get(created.id)).toEqual(updated);
    const codes = await t.database.db
      .selectFrom('customerSalesTrackingCodes')
      .select('code')
      .where('customerId', '=', created.id)
      .execute();
    expect(codes).toEqual([]);
  });

  it('replaces the reference, sales tracking codes and acquisition with the ones sent', async () => {
    const created = await createCustomer(t, {
      customerReference: { reference1: 'old', salesTrackingCodes: [{ type: 'Region', code: 'EAST' }] },
      customerAcquisition: { source: 'print', campaign: 'winter' },
    });
    const res = await put({
      id: created.id,
      status: 'Draft',
      customerReference: { reference2: 'new', salesTrackingCodes: [{ type: 'Sales Tracking Code 1', code: 'WEB' }] },
      customerAcquisition: { medium: 'email' },
    });
    expect(res.statusCode).toBe(200);
    const updated = res.json();
    expect(updated.customerReference).toMatchObject({
      reference1: null,
      reference2: 'new',
      salesTrackingCodes: [{ type: 'Sales Tracking Code 1', code: 'WEB', name: 'Web shop', id: 1 }],
    });
    expect(updated.customerAcquisition).toMatchObject({ source: null, campaign: null, medium: 'email' });
  });

  it('validates a PUT like a create: bad e-mail, unknown tracking code, too long a name', async () => {
    const created = await createCustomer(t, {});
    const bad = await put({ id: created.id, status: 'Draft', primaryEmail: 'nope', firstName: 'x'.repeat(51) });
    expect(bad.statusCode).toBe(400);
    expect(
      errorsOf(bad)
        .map((e) => e.Key)
        .sort(),
    ).toEqual(['firstName', 'primaryEmail']);
    const code = await put({
      id: created.id,
      status: 'Draft',
      customerReference: { salesTrackingCodes: [{ type: 'Region', code: 'NORTH' }] },
    });
    expect(code.statusCode).toBe(400);
    expect(errorsOf(code)[0]!.Key).toBe('customerReference.salesTrackingCodes[0].code');
  });

  it.each([
    ['id', { status: 'Draft', firstName: 'No id' }],
    ['status', { firstName: 'No status' }],
  ])('requires %s (400 keyed on it)', async (key, body) => {
    const created = await createCustomer(t, { firstName: 'Unchanged' });
    const res = await put(key === 'status' ? { id: created.id, ...body } : body);
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual([key]);
    expect((await get(created.id)).firstName).toBe('Unchanged');
  });

  it('accepts the currency omitted or unchanged and refuses a different one', async () => {
    const created = await createCustomer(t, {});
    expect((await put({ id: created.id, status: 'Draft', firstName: 'Omitted' })).statusCode).toBe(200);
    const same = await put({ id: created.id, status: 'Draft', currency: 'usd', firstName: 'Same' });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ currency: 'USD', firstName: 'Same' });

    const other = await put({ id: created.id, status: 'Draft', currency: 'CAD', firstName: 'Other' });
    expect(other.statusCode).toBe(400);
    expect(errorsOf(other)).toEqual([{ Key: 'currency', Value: expect.stringMatching(/USD/), Code: 'value_invalid' }]);
    expect(await get(created.id)).toMatchObject({ currency: 'USD', firstName: 'Same' });
  });

  it('refuses status Suspended: only the system suspends customers', async () => {
    const created = await createCustomer(t, {});
    const res = await put({ id: created.id, status: 'Suspended' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'only the system suspends customers', Code: 'value_invalid' }]);
    expect((await get(created.id)).status).toBe('Draft');
  });

  it('refuses Draft to Active through PUT, naming POST /v1/customeractivation', async () => {
    const created = await createCustomer(t, {});
    const res = await put({ id: created.id, status: 'Active' });
    expect(res.statusCode).toBe(400);
    const [error] = errorsOf(res);
    expect(error!.Key).toBe('status');
    expect(error!.Value).toContain('POST /v1/customeractivation');
    expect((await get(created.id)).status).toBe('Draft');
  });

  it('refuses cancelling through PUT, naming POST /v1/customercancellation', async () => {
    const created = await createCustomer(t, {});
    const res = await put({ id: created.id, status: 'Cancelled' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Value).toContain('POST /v1/customercancellation');
  });

  it('refuses a status that is not one of the five', async () => {
    const created = await createCustomer(t, {});
    const res = await put({ id: created.id, status: 'Paused' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('status');
  });

  it('keeps portalUserName read-only once set', async () => {
    const created = await createCustomer(t, { portalUserName: 'fixed.name' });
    const change = await put({ id: created.id, status: 'Draft', portalUserName: 'other.name' });
    expect(change.statusCode).toBe(400);
    expect(errorsOf(change)).toEqual([{ Key: 'portalUserName', Value: 'portalUserName cannot change once set', Code: 'value_invalid' }]);

    const cleared = await put({ id: created.id, status: 'Draft', portalUserName: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().portalUserName).toBe('fixed.name');
    const same = await put({ id: created.id, status: 'Draft', portalUserName: 'fixed.name' });
    expect(same.statusCode).toBe(200);
  });

  it('lets a customer without a portal user name get one, if nobody else has it', async () => {
    const taken = await createCustomer(t, { portalUserName: 'taken.name' });
    const created = await createCustomer(t, {});
    const clash = await put({ id: created.id, status: 'Draft', portalUserName: 'taken.name' });
    expect(clash.statusCode).toBe(400);
    expect(errorsOf(clash)).toEqual([{ Key: 'portalUserName', Value: 'already used by another customer', Code: 'value_taken' }]);
    expect((await get(taken.id)).portalUserName).toBe('taken.name');

    const res = await put({ id: created.id, status: 'Draft', portalUserName: 'fresh.name' });
    expect(res.statusCode).toBe(200);
    expect(res.json().portalUserName).toBe('fresh.name');
  });

  it('moves modifiedTimestamp forward and leaves createdTimestamp alone', async () => {
    const created = await createCustomer(t, { firstName: 'Before' });
    await sleep(20);
    const updated = (await put({ id: created.id, status: 'Draft', firstName: 'After' })).json();
    expect(Date.parse(updated.modifiedTimestamp)).toBeGreaterThan(Date.parse(created.modifiedTimestamp));
    expect(updated.createdTimestamp).toBe(created.createdTimestamp);
  });

  it("answers 404 for an unknown id, and for another account's customer", async () => {
    const unknown = await put({ id: 987654, status: 'Draft' });
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);

    const other = await t.newAccount();
    const theirs = await createCustomer(t, { firstName: 'Theirs' }, other);
    const res = await put({ id: theirs.id, status: 'Draft', firstName: 'Mine now' });
    expect(res.statusCode).toBe(404);
    const stillTheirs = await t.call('GET', `/v1/customers/${theirs.id}`, undefined, { as: other });
    expect(stillTheirs.json().firstName).toBe('Theirs');
  });

  it('refuses making a customer its own parent, or the child of an unknown customer', async () => {
    const created = await createCustomer(t, {});
    const self = await put({ id: created.id, status: 'Draft', parentId: created.id });
    expect(self.statusCode).toBe(400);
    expect(errorsOf(self)).toEqual([{ Key: 'parentId', Value: 'a customer cannot be its own parent', Code: 'value_invalid' }]);
    const unknown = await put({ id: created.id, status: 'Draft', parentId: 987654 });
    expect(unknown.statusCode).toBe(400);
    expect(errorsOf(unknown)[0]!.Key).toBe('parentId');
  });

  it('takes back the full object read with GET, changed in one place (read, modify, send back)', async () => {
    const parent = await createCustomer(t, { companyName: 'Parent Inc' });
    const created = await createCustomer(t, { ...everyFieldCustomer(), parentId: parent.id });
    const read = await get(created.id);
    await sleep(5);

    const res = await put({ ...read, lastName: 'Byron' });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json();
    const { modifiedTimestamp: _before, ...readRest } = read;
    const { modifiedTimestamp: _after, ...updatedRest } = updated;
    expect(updatedRest).toEqual({ ...readRest, lastName: 'Byron' });
    expect(updated.customerReference.salesTrackingCodes).toHaveLength(2);
    expect(updated.parentId).toBe(parent.id);
  });
});
