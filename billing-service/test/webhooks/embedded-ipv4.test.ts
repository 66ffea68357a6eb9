import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { emitWebhookEvent } from '../../src/outbox/webhook-events.js';
import type { ResolvedAddress } from '../../src/outbox/url-safety.js';

/**
 * IPv6 addresses that carry an IPv4 address: a NAT64 translator, a 6to4 relay or a Teredo
 * server would carry the webhook on to that IPv4 address, so each is judged by it.
 */
const CARRIERS: Array<[form: string, address: string]> = [
  ['NAT64 well-known prefix, 127.0.0.1', '64:ff9b::7f00:1'],
  ['NAT64 local-use prefix, 10.0.0.1', '64:ff9b:1::a00:1'],
  ['NAT64 local-use prefix, a layout of its own', '64:ff9b:1:abcd::1'],
  ['6to4, 127.0.0.1', '2002:7f00:1::1'],
  ['6to4, 169.254.169.254', '2002:a9fe:a9fe::1'],
  ['IPv4-translated, 127.0.0.1', '::ffff:0:7f00:1'],
  ['IPv4-mapped, 192.168.1.1', '::ffff:c0a8:101'],
  ['IPv4-compatible, 10.1.2.3', '::a01:203'],
  ['Teredo, client 127.0.0.1 (inverted)', '2001:0:808:808:8000:63bf:80ff:fffe'],
  ['Teredo, server 10.0.0.1', '2001:0:a00:1:8000:63bf:f7f7:f7f7'],
  ['6to4 relay anycast', '192.88.99.1'],
];

/** Public addresses, in the same forms, stay accepted. */
const PUBLIC = ['64:ff9b::808:808', '2002:808:808::1', '2001:0:808:808:8000:63bf:f7f7:f7f7', '93.184.216.34'];

/**
 * Stand-in DNS: `n<i>.carrier.test` is the i-th carrier; `m<i>.moving.test` is a public address
 * until the test moves it to the i-th carrier (a name rebound after its check).
 */
let moved = false;
const family = (address: string): 4 | 6 => (address.includes(':') ? 6 : 4);
const resolve = async (host: string): Promise<ResolvedAddress[]> => {
  const carrier = /^(n|m)(\d+)\.(carrier|moving)\.test$/.exec(host);
  if (carrier) {
    const address = carrier[3] === 'moving' && !moved ? '93.184.216.34' : CARRIERS[Number(carrier[2])]![1];
    return [{ address, family: family(address) }];
  }
  const open = /^p(\d+)\.public\.test$/.exec(host);
  if (open) return [{ address: PUBLIC[Number(open[1])]!, family: family(PUBLIC[Number(open[1])]!) }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { webhooks: { resolve }, webhookWorker: false } });
});
afterAll(async () => t?.close());

const create = (url: string) => t.call('POST', '/v1/webhookEndpoints', { url, eventTypes: ['*'] });
const literal = (address: string) => (address.includes(':') ? `[${address}]` : address);

describe('webhook URLs whose IPv6 address carries an IPv4 address', () => {
  it('are refused at create and update, as literals and as names, without telling what a name resolves to', async () => {
    for (const [i, [form, address]] of CARRIERS.entries()) {
      const asLiteral = await create(`https://${literal(address)}/hook`);
      expect(asLiteral.statusCode, form).toBe(400);
      expect(errorsOf(asLiteral), form).toEqual([
        { Key: 'url', Value: expect.stringMatching(/only public addresses/), Code: 'value_invalid' },
      ]);

      const asName = await create(`https://n${i}.carrier.test/hook`);
      expect(asName.statusCode, form).toBe(400);
      const [error] = errorsOf(asName);
      expect(error, form).toMatchObject({
        Key: 'url',
        Value: expect.stringMatching(/^host n\d+\.carrier\.test does not resolve to a public address/),
      });
      // Neither the address nor the kind of network behind the name.
      expect(error!.Value, form).not.toMatch(/\d+\.\d+\.\d+\.\d+|[0-9a-f]*:[0-9a-f]*:|private|loopback|link-local|reserved/i);
    }
    const endpoint = (await create('https://p3.public.test/hook')).json();
    for (const [form, address] of CARRIERS) {
      const update = await t.call('PUT', `/v1/webhookEndpoints/${endpoint.id}`, {
        url: `https://${literal(address)}/hook`,
        eventTypes: ['*'],
      });
      expect(update.statusCode, form).toBe(400);
      expect(errorsOf(update)[0], form).toMatchObject({ Key: 'url' });
    }
  });

  it('are accepted when the IPv4 address they carry is public', async () => {
    for (const [i, address] of PUBLIC.entries()) {
      expect((await create(`https://${literal(address)}/hook`)).statusCode, address).toBe(200);
      expect((await create(`https://p${i}.public.test/hook`)).statusCode, address).toBe(200);
    }
  });

  it('are refused again at each delivery, when a name has come to resolve to one', async () => {
    const account = await t.newAccount();
    const endpoints: number[] = [];
    for (const i of CARRIERS.keys()) {
      const response = await t.call(
        'POST',
        '/v1/webhookEndpoints',
        { url: `https://m${i}.moving.test/hook`, eventTypes: ['*'] },
        { as: account },
      );
      expect(response.statusCode, response.body).toBe(200);
      endpoints.push(response.json().id);
    }
    moved = true;
    const now = new Date('2030-01-01T00:00:00Z');
    await t.database.db
      .transaction()
      .execute((trx) =>
        emitWebhookEvent(trx, { accountId: account.accountId, customerId: null, type: 'customer.created', data: { n: 1 }, now }),
      );
    await new WebhookDeliveryWorker(t.database.db, { resolve, random: () => 0.5, timeoutMs: 2_000 }, t.app.log).runDue(
      new Date(now.getTime() + 1_000),
    );
    for (const [i, id] of endpoints.entries()) {
      const attempts = (await t.call('GET', `/v1/webhookEndpoints/${id}/deliveries`, undefined, { as: account })).json();
      expect(attempts, CARRIERS[i]![0]).toEqual([
        expect.objectContaining({
          httpStatus: null,
          error: `refused: host m${i}.moving.test does not resolve to a public address; only public addresses are allowed`,
        }),
      ]);
    }
  });
});
