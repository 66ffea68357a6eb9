import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: testCatalog({ emails: { defaultLanguage: 'es' } }) });
});
afterAll(async () => {
  await t?.close();
});

const create = (body: Record<string, unknown> = {}) => t.call('POST', '/v1/customers', { firstName: 'Ada', lastName: 'Lovelace', ...body });

describe("the customer's language (an extension)", () => {
  it("is stored on create and shown on read; without one the account's default is shown", async () => {
    const french = await create({ language: 'fr' });
    expect(french.statusCode, french.body).toBe(200);
    expect(french.json().language).toBe('fr');
    expect((await t.call('GET', `/v1/customers/${french.json().id}`)).json().language).toBe('fr');

    const none = await create();
    expect(none.json().language).toBe('es');
    const listed = (await t.call('GET', `/v1/customers?query=Id:${none.json().id}`)).json();
    expect(listed[0].language).toBe('es');
  });

  it('is kept by a PUT that leaves it out, changed by one that gives it, and back to the default with null', async () => {
    const created = (await create({ language: 'de' })).json();
    const { language: _language, ...withoutLanguage } = created;
    const kept = await t.call('PUT', '/v1/customers', { ...withoutLanguage, firstName: 'Augusta' });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json()).toMatchObject({ firstName: 'Augusta', language: 'de' });

    expect((await t.call('PUT', '/v1/customers', { ...created, language: 'en' })).json().language).toBe('en');
    expect((await t.call('PUT', '/v1/customers', { ...created, language: null })).json().language).toBe('es');
  });

  it('refuses a language it does not write in, keyed on the field, creating nothing', async () => {
    const before = (await t.call('GET', '/v1/customers')).headers['x-maxcount'];
    for (const language of ['it', 'FR', 'fr-CA', 3]) {
      const res = await create({ language });
      expect(res.statusCode, JSON.stringify(language)).toBe(400);
      expect(res.json().Errors.map((e: { Key: string }) => e.Key)).toEqual(['language']);
    }
    expect((await t.call('GET', '/v1/customers')).headers['x-maxcount']).toBe(before);
  });
});
