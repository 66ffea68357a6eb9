import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import type { ResolvedAddress } from '../../src/outbox/url-safety.js';

/** Stand-in DNS: names of the tests only, nothing leaves the machine. */
const DNS: Record<string, ResolvedAddress[]> = {
  'hooks.example.com': [{ address: '93.184.216.34', family: 4 }],
  'other.example.com': [{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }],
  'inward.example.com': [
    { address: '93.184.216.34', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ],
  'mapped.example.com': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'metadata.example.com': [{ address: '169.254.169.254', family: 4 }],
};
const resolve = async (host: string) => {
  const found = DNS[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { webhooks: { resolve }, webhookWorker: false } });
});
afterAll(async () => t?.close());

const create = (body: unknown, as?: TestApp['account']) => t.call('POST', '/v1/webhookEndpoints', body, as ? { as } : {});

describe('webhook endpoints', () => {
  it('are created with a secret shown once, then read, listed, replaced and deleted', async () => {
    const created = await create({
      url: 'https://hooks.example.com/renew',
      eventTypes: ['customer.created', 'invoice.paid'],
      description: 'ERP sync',
    });
    expect(created.statusCode).toBe(200);
    const endpoint = created.json();
    expect(endpoint).toMatchObject({
      url: 'https://hooks.example.com/renew',
      eventTypes: ['customer.created', 'invoice.paid'],
      description: 'ERP sync',
      status: 'Enabled',
      failingSinceTimestamp: null,
      uri: `https://billing.test/v1/webhookEndpoints/${endpoint.id}`,
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const key = Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64');
    expect(key.length).toBeGreaterThanOrEqual(24);
    expect(key.length).toBeLessThanOrEqual(32);
    expect(Date.parse(endpoint.createdTimestamp)).not.toBeNaN();

    // The secret is not shown again.
    const read = await t.call('GET', endpoint.uri.replace('https://billing.test', ''));
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('secret');
    expect(read.json()).toMatchObject({ id: endpoint.id, url: endpoint.url, status: 'Enabled' });

    // PUT as the API's other PUTs: the id in the body.
    const replaced = await t.call('PUT', '/v1/webhookEndpoints', {
      id: endpoint.id,
      url: 'https://other.example.com/x',
      eventTypes: ['*'],
      status: 'Disabled',
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({
      id: endpoint.id,
      url: 'https://other.example.com/x',
      eventTypes: ['*'],
      description: null,
      status: 'Disabled',
    });
    expect(replaced.json()).not.toHaveProperty('secret');
    // ... or in the path; status left out stays; "*" among others is all.
    const again = await t.call('PUT', `/v1/webhookEndpoints/${endpoint.id}`, {
      url: 'https://hooks.example.com/y',
      eventTypes: ['invoice.paid', '*'],
      description: 'd',
    });
    expect(again.json()).toMatchObject({ url: 'https://hooks.example.com/y', eventTypes: ['*'], description: 'd', status: 'Disabled' });
    const enabled = await t.call('PUT', `/v1/webhookEndpoints/${endpoint.id}`, {
      url: 'https://hooks.example.com/y',
      eventTypes: ['invoice.paid', 'invoice.paid'],
      status: 'Enabled',
    });
    expect(enabled.json()).toMatchObject({ eventTypes: ['invoice.paid'], status: 'Enabled' });
    const mismatch = await t.call('PUT', `/v1/webhookEndpoints/${endpoint.id}`, {
      id: endpoint.id + 1,
      url: 'https://hooks.example.com/y',
      eventTypes: ['*'],
    });
    expect(mismatch.statusCode).toBe(400);
    expect(errorsOf(mismatch)[0]!.Key).toBe('id');

    const rotated = await t.call('POST', `/v1/webhookEndpoints/${endpoint.id}/rotateSecret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(endpoint.secret);

    const deleted = await t.call('DELETE', `/v1/webhookEndpoints/${endpoint.id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await t.call('GET', `/v1/webhookEndpoints/${endpoint.id}`)).statusCode).toBe(404);
    expect((await t.call('DELETE', `/v1/webhookEndpoints/${endpoint.id}`)).statusCode).toBe(404);
    expect(
      (await t.call('PUT', `/v1/webhookEndpoints/${endpoint.id}`, { url: 'https://hooks.example.com/', eventTypes: ['*'] })).statusCode,
    ).toBe(404);
    expect((await t.call('POST', `/v1/webhookEndpoints/${endpoint.id}/rotateSecret`)).statusCode).toBe(404);

    // Every change is in the audit log, never the secret.
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select(['action', 'changes'])
      .where('entityType', '=', 'WebhookEndpoint')
      .where('entityId', '=', endpoint.id)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['create', 'update', 'update', 'update', 'update', 'delete']);
    expect(JSON.stringify(audit)).not.toContain(endpoint.secret);
    expect(JSON.stringify(audit)).not.toContain(rotated.json().secret);
  });

  it('are listed with the query language and paging, deleted ones left out', async () => {
    const account = await t.newAccount();
    const ids: number[] = [];
    for (const [i, url] of ['https://hooks.example.com/a', 'https://hooks.example.com/b', 'https://other.example.com/c'].entries()) {
      const r = await create({ url, eventTypes: ['*'], description: `n${i}` }, account);
      ids.push(r.json().id);
    }
    await t.call(
      'PUT',
      '/v1/webhookEndpoints',
      { id: ids[1], url: 'https://hooks.example.com/b', eventTypes: ['*'], status: 'Disabled' },
      { as: account },
    );
    await t.call('DELETE', `/v1/webhookEndpoints/${ids[2]}`, undefined, { as: account });

    const all = await t.call('GET', '/v1/webhookEndpoints', undefined, { as: account });
    expect(all.statusCode).toBe(200);
    expect(all.json().map((e: { id: number }) => e.id)).toEqual([ids[0], ids[1]]);
    expect(all.json()[0]).not.toHaveProperty('secret');
    expect(all.headers['x-count']).toBe('2');

    const enabled = await t.call('GET', '/v1/webhookEndpoints?query=Status:Enabled', undefined, { as: account });
    expect(enabled.json().map((e: { id: number }) => e.id)).toEqual([ids[0]]);
    const byUrl = await t.call('GET', '/v1/webhookEndpoints?query=Url:*/b', undefined, { as: account });
    expect(byUrl.json().map((e: { id: number }) => e.id)).toEqual([ids[1]]);
    const paged = await t.call('GET', '/v1/webhookEndpoints?pageSize=1&pageNumber=1&sortOrder=Descending&sortExpression=Id', undefined, {
      as: account,
    });
    expect(paged.json().map((e: { id: number }) => e.id)).toEqual([ids[0]]);
    expect(paged.headers['x-previouspage']).toBe('0');
    const bad = await t.call('GET', '/v1/webhookEndpoints?query=Nope:1', undefined, { as: account });
    expect(bad.statusCode).toBe(400);
  });

  it('refuse bad URLs, http, private addresses and unknown event types, keyed on the field', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ url: 'not a url', eventTypes: ['*'] }, 'url', /absolute URL/],
      [{ url: 'ftp://hooks.example.com/', eventTypes: ['*'] }, 'url', /https/],
      [{ url: 'http://hooks.example.com/', eventTypes: ['*'] }, 'url', /https/],
      [{ url: 'https://user:pw@hooks.example.com/', eventTypes: ['*'] }, 'url', /credentials/],
      [{ url: 'https://10.0.0.1/hook', eventTypes: ['*'] }, 'url', /private/],
      [{ url: 'https://127.0.0.1:8443/hook', eventTypes: ['*'] }, 'url', /loopback/],
      [{ url: 'https://[::1]/hook', eventTypes: ['*'] }, 'url', /loopback/],
      [{ url: 'https://[::ffff:10.1.2.3]/hook', eventTypes: ['*'] }, 'url', /private/],
      [{ url: 'https://[fe80::1]/hook', eventTypes: ['*'] }, 'url', /link-local/],
      [{ url: 'https://0.0.0.0/hook', eventTypes: ['*'] }, 'url', /unspecified/],
      [{ url: 'https://100.64.0.1/hook', eventTypes: ['*'] }, 'url', /CGNAT/],
      [{ url: 'https://224.0.0.1/hook', eventTypes: ['*'] }, 'url', /multicast/],
      // What a name resolves to is not said (it would map the network behind the server).
      [
        { url: 'https://inward.example.com/hook', eventTypes: ['*'] },
        'url',
        /^host inward\.example\.com does not resolve to a public address/,
      ],
      [
        { url: 'https://mapped.example.com/hook', eventTypes: ['*'] },
        'url',
        /^host mapped\.example\.com does not resolve to a public address/,
      ],
      [
        { url: 'https://metadata.example.com/hook', eventTypes: ['*'] },
        'url',
        /^host metadata\.example\.com does not resolve to a public address/,
      ],
      [{ url: 'https://nowhere.example.com/hook', eventTypes: ['*'] }, 'url', /could not be resolved/],
      [
        { url: 'https://hooks.example.com/', eventTypes: ['customer.created', 'customer.exploded'] },
        'eventTypes[1]',
        /must be "\*" or one of/,
      ],
      [{ url: 'https://hooks.example.com/', eventTypes: [] }, 'eventTypes', /at least one/],
      [{ eventTypes: ['*'] }, 'url', /./],
      [{ url: 'https://hooks.example.com/' }, 'eventTypes', /./],
    ];
    for (const [body, key, message] of cases) {
      const response = await create(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      const errors = errorsOf(response);
      expect(
        errors.map((e) => e.Key),
        JSON.stringify(body),
      ).toContain(key);
      expect(errors.find((e) => e.Key === key)!.Value, JSON.stringify(body)).toMatch(message);
    }
    // Updates are checked the same way.
    const ok = (await create({ url: 'https://hooks.example.com/', eventTypes: ['*'] })).json();
    const update = await t.call('PUT', `/v1/webhookEndpoints/${ok.id}`, {
      url: 'https://169.254.169.254/latest/meta-data',
      eventTypes: ['*'],
    });
    expect(update.statusCode).toBe(400);
    expect(errorsOf(update)[0]).toMatchObject({ Key: 'url' });
    expect((await t.call('GET', `/v1/webhookEndpoints/${ok.id}`)).json().url).toBe('https://hooks.example.com/');
  });

  it("answer 404 for another account's endpoints and deliveries", async () => {
    const mine = (await create({ url: 'https://hooks.example.com/mine', eventTypes: ['*'] })).json();
    const other = await t.newAccount();
    const as = { as: other };
    expect((await t.call('GET', `/v1/webhookEndpoints/${mine.id}`, undefined, as)).statusCode).toBe(404);
    expect(
      (await t.call('PUT', `/v1/webhookEndpoints/${mine.id}`, { url: 'https://hooks.example.com/', eventTypes: ['*'] }, as)).statusCode,
    ).toBe(404);
    expect(
      (await t.call('PUT', '/v1/webhookEndpoints', { id: mine.id, url: 'https://hooks.example.com/', eventTypes: ['*'] }, as)).statusCode,
    ).toBe(404);
    expect((await t.call('DELETE', `/v1/webhookEndpoints/${mine.id}`, undefined, as)).statusCode).toBe(404);
    expect((await t.call('POST', `/v1/webhookEndpoints/${mine.id}/rotateSecret`, undefined, as)).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/webhookEndpoints/${mine.id}/deliveries`, undefined, as)).statusCode).toBe(404);
    expect((await t.call('GET', '/v1/webhookEndpoints', undefined, as)).json()).toEqual([]);
    expect((await t.call('GET', `/v1/webhookEndpoints/${mine.id}`)).statusCode).toBe(200);
    expect((await t.call('GET', '/v1/webhookEndpoints/99999999999')).statusCode).toBe(404);
    expect(
      (await t.call('PUT', '/v1/webhookEndpoints', { id: 99999999999, url: 'https://hooks.example.com/', eventTypes: ['*'] })).statusCode,
    ).toBe(404);
    expect((await t.call('GET', '/v1/webhookEndpoints/99999999999/deliveries')).statusCode).toBe(404);
    expect((await t.call('GET', '/v1/webhookDeliveries/99999999999')).statusCode).toBe(404);
    expect((await t.call('POST', '/v1/webhookDeliveries/99999999999/retry')).statusCode).toBe(404);
    expect((await t.call('PUT', '/v1/webhookEndpoints', { url: 'https://hooks.example.com/', eventTypes: ['*'] })).statusCode).toBe(400);
    // The public key is for the card-capture host only.
    const publicKey = await t.app.inject({
      method: 'GET',
      url: '/v1/webhookEndpoints',
      headers: { authorization: `Basic ${t.account.publicApiKey}` },
    });
    expect(publicKey.statusCode).toBeGreaterThanOrEqual(401);
    expect(publicKey.statusCode).toBeLessThanOrEqual(403);
  });
});

describe('the endpoints of one account', () => {
  it("are at most 16 (the catalogue's default): the 17th is a 400 keyed on url, until one is deleted", async () => {
    const account = await t.newAccount();
    const ids: number[] = [];
    for (let n = 1; n <= 16; n++) {
      const res = await t.call(
        'POST',
        '/v1/webhookEndpoints',
        { url: `https://hooks.example.com/${n}`, eventTypes: ['*'] },
        { as: account },
      );
      expect(res.statusCode, res.body).toBe(200);
      ids.push(res.json().id);
    }
    const seventeenth = await t.call(
      'POST',
      '/v1/webhookEndpoints',
      { url: 'https://hooks.example.com/17', eventTypes: ['*'] },
      { as: account },
    );
    expect(seventeenth.statusCode).toBe(400);
    expect(seventeenth.json()).toMatchObject({ HttpStatusCode: 400 });
    expect(errorsOf(seventeenth)).toEqual([
      { Key: 'url', Value: expect.stringContaining('at most 16 webhook endpoints'), Code: 'value_invalid' },
    ]);
    // Another account's endpoints are its own.
    const other = await t.newAccount();
    expect(
      (await t.call('POST', '/v1/webhookEndpoints', { url: 'https://hooks.example.com/other', eventTypes: ['*'] }, { as: other }))
        .statusCode,
    ).toBe(200);
    expect((await t.call('DELETE', `/v1/webhookEndpoints/${ids[0]}`, undefined, { as: account })).statusCode).toBeLessThan(300);
    expect(
      (await t.call('POST', '/v1/webhookEndpoints', { url: 'https://hooks.example.com/17', eventTypes: ['*'] }, { as: account }))
        .statusCode,
    ).toBe(200);
  });
});
