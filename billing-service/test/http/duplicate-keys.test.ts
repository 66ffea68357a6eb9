import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** A body sent as written: JSON.stringify could not name a property twice. */
const send = (method: 'POST' | 'PUT', url: string, payload: string) =>
  t.app.inject({ method, url, headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' }, payload });

const customerCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('customers')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('a JSON body that names one property twice', () => {
  it('is refused with 400 keyed by the property path, at any depth, and nothing is written', async () => {
    const before = await customerCount();
    const cases: Array<[payload: string, key: string]> = [
      ['{"firstName":"Ann","firstName":"Bob"}', 'firstName'],
      ['{"firstName":"Ann","lastName":"Lee","firstName":"Ann"}', 'firstName'],
      ['{"firstName":"Ann","customerAcquisition":{"source":"a","source":"b"}}', 'customerAcquisition.source'],
      ['{"firstName":"Ann","first\\u004eame":"Bob"}', 'firstName'],
      ['{"tags":[{"a":1},{"b":[1,{"c":2,"c":3}]}]}', 'tags[1].b[1].c'],
      ['{"x\\"y":1, "x\\"y" :2}', 'x"y'],
    ];
    for (const [payload, key] of cases) {
      const response = await send('POST', '/v1/customers', payload);
      expect(response.statusCode, payload).toBe(400);
      expect(errorsOf(response), payload).toEqual([{ Key: key, Value: expect.any(String), Code: 'value_invalid' }]);
    }
    expect(await customerCount()).toBe(before);

    const created = (await t.call('POST', '/v1/customers', { firstName: 'Ann' })).json();
    const update = await send(
      'PUT',
      `/v1/customers/${created.id}`,
      '{"firstName":"Ann","primaryEmail":"a@example.com","primaryEmail":"b@example.com"}',
    );
    expect(update.statusCode).toBe(400);
    expect(errorsOf(update)).toEqual([{ Key: 'primaryEmail', Value: expect.any(String), Code: 'value_invalid' }]);
    expect((await t.call('GET', `/v1/customers/${created.id}`)).json().primaryEmail ?? null).toBeNull();
  });

  it('is told apart from one name in different objects, and from names inside string values', async () => {
    const payload =
      '{"firstName":"a\\",\\"firstName\\":\\"b","lastName":"{\\"lastName\\":1}","customerAcquisition":{"source":"firstName","campaign":"c"}}';
    const response = await send('POST', '/v1/customers', payload);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ firstName: 'a","firstName":"b', lastName: '{"lastName":1}' });
  });
});
