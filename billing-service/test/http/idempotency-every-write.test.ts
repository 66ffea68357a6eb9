import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyOfRoutes, isV1Write } from '../../src/http/idempotency.js';
import { ACTIVATION_FLAGS, BASIC_MONTHLY, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** Every write of /v1 takes Idempotency-Key (issue 35): none forgotten, each family replayed exactly and refused with another body. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { testClocks: true, webhooks: { allowHttp: true, allowPrivate: true }, webhookWorker: false } });
});
afterAll(async () => {
  await t?.close();
});

type Write = { method: 'POST' | 'PUT' | 'DELETE'; url: string; body?: unknown };
let keyCount = 0;
const keyed = (w: Write, key: string) => t.call(w.method, w.url, w.body, { headers: { 'idempotency-key': key } });

/** The routes Fastify knows, from its own route tree (each line a path segment under its parent): `METHOD /path` for each /v1 write. */
function v1Writes(): string[] {
  const tree = t.app.printRoutes({ commonPrefix: false });
  const writes: string[] = [];
  const parents: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const [, indent, segment, methods] = match as unknown as [string, string, string, string | undefined];
    const depth = indent.length / 4;
    parents.length = depth;
    const path = parents.join('') + segment;
    parents.push(segment);
    for (const method of methods?.split(', ') ?? []) if (isV1Write(method, path)) writes.push(`${method} ${path}`);
  }
  return writes;
}

/** What a write leaves behind: audit entries and webhook events of the account (a replay adds none). */
async function effects(): Promise<number> {
  const audit = await t.database.db
    .selectFrom('auditLog')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('accountId', '=', t.account.accountId)
    .executeTakeFirstOrThrow();
  const events = await t.database.db
    .selectFrom('webhookEvents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('accountId', '=', t.account.accountId)
    .executeTakeFirstOrThrow();
  return Number(audit.n) + Number(events.n);
}

function expectReplayOf(first: LightMyRequestResponse, again: LightMyRequestResponse) {
  expect(again.statusCode).toBe(first.statusCode);
  expect(again.body).toBe(first.body);
  expect(again.headers['idempotent-replayed']).toBe('true');
}

describe('Idempotency-Key on every write of /v1', () => {
  it('keys every POST, PUT, PATCH and DELETE route the app has (a route opts out only with a reason)', async () => {
    const writes = v1Writes();
    expect(writes.length).toBeGreaterThanOrEqual(38); // 38 when written (issue 35)
    const seen = new Map([...idempotencyOfRoutes(t.app)].map(([route, how]) => [route.toLowerCase(), how]));
    const unkeyed = writes.filter((route) => {
      const how = seen.get(route.toLowerCase());
      return how !== 'keyed' && !/^off: \S.{10,}/.test(how ?? '');
    });
    expect(unkeyed).toEqual([]);
    // And in deed: a request that passes validation is answered once per key (an unknown id: a 404 kept for its key).
    // A body the route's schema refuses is answered before any handler runs, keyed or not, and changes nothing.
    let replayed = 0;
    for (const route of writes) {
      const [method, path] = route.split(' ') as [Write['method'], string];
      const url = path.replace(/:[A-Za-z]+/g, '999999');
      const write = { method, url, body: method === 'DELETE' ? undefined : { id: 999999, customerId: 999999 } };
      const key = `enumerated-${++keyCount}`;
      const first = await keyed(write, key);
      const again = await keyed(write, key);
      if (first.statusCode === 400 && first.json().Errors[0].Key !== 'Idempotency-Key') continue;
      expect(again.headers['idempotent-replayed'], `${route} → ${first.statusCode}`).toBe('true');
      expect(again.body).toBe(first.body);
      replayed++;
    }
    expect(replayed).toBeGreaterThanOrEqual(20);
  });

  it('the API reference documents the header on every keyed write, and on no read', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>;
    };
    const documents = (op: { parameters?: Array<{ in: string; name: string }> }) =>
      (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    const writes: string[] = [];
    const undocumented: string[] = [];
    const reads: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if (['post', 'put', 'patch', 'delete'].includes(method)) {
          writes.push(`${method} ${path}`);
          if (!documents(op)) undocumented.push(`${method} ${path}`);
        } else if (documents(op)) reads.push(`${method} ${path}`);
      }
    }
    expect(writes.length).toBeGreaterThan(30);
    expect(undocumented).toEqual([]);
    expect(reads).toEqual([]);
  });

  it('a key longer than 255 characters is a 400 keyed Idempotency-Key', async () => {
    const res = await keyed({ method: 'POST', url: '/v1/customers', body: {} }, 'k'.repeat(256));
    expect(res.statusCode).toBe(400);
    expect(res.json().Errors[0].Key).toBe('Idempotency-Key');
  });

  const families: Array<[string, () => Promise<{ write: Write; other: Write }>]> = [
    [
      'customer create',
      async () => ({
        write: { method: 'POST', url: '/v1/customers', body: { firstName: 'Ada' } },
        other: { method: 'POST', url: '/v1/customers', body: { firstName: 'Bea' } },
      }),
    ],
    [
      'customer update',
      async () => {
        const id = await newCustomer(t);
        return {
          write: { method: 'PUT', url: '/v1/customers', body: { id, status: 'Draft', firstName: 'Cy' } },
          other: { method: 'PUT', url: '/v1/customers', body: { id, status: 'Draft', firstName: 'Di' } },
        };
      },
    ],
    [
      'note create and delete',
      async () => {
        const customerId = await newCustomer(t);
        const note = (await t.call('POST', '/v1/customernotes', { customerId, note: 'to delete' })).json().id as number;
        return {
          write: { method: 'DELETE', url: `/v1/customerNotes/${note}` },
          other: { method: 'POST', url: '/v1/customernotes', body: { customerId, note: 'x' } },
        };
      },
    ],
    [
      'address create',
      async () => {
        const customerAddressPreferenceId = await newCustomer(t);
        const body = {
          customerAddressPreferenceId,
          addressType: 'Billing',
          line1: '1 Main St',
          city: 'Springfield',
          country: 'US',
          state: 'IL',
          zip: '62701',
        };
        return {
          write: { method: 'POST', url: '/v1/Addresses', body },
          other: { method: 'POST', url: '/v1/Addresses', body: { ...body, line1: '2 Main St' } },
        };
      },
    ],
    [
      'subscription create',
      async () => {
        const customerId = await newCustomer(t);
        const write: Write = { method: 'POST', url: '/v1/subscriptions', body: { customerId, planFrequencyId: BASIC_MONTHLY } };
        return { write, other: { ...write, body: { customerId, planFrequencyId: BASIC_MONTHLY, name: 'other' } } };
      },
    ],
    [
      'activation',
      async () => {
        const customerId = await newCustomer(t);
        await newSubscription(t, customerId);
        const write: Write = { method: 'POST', url: '/v1/customeractivation', body: { customerId, ...ACTIVATION_FLAGS } };
        return { write, other: { ...write, body: { customerId, ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true } } };
      },
    ],
    ...(['hold', 'unhold', 'cancel', 'uncancel'] as const).map((step): [string, () => Promise<{ write: Write; other: Write }>] => [
      step,
      async () => {
        const customerId = await newCustomer(t);
        await newSubscription(t, customerId);
        expect((await t.call('POST', '/v1/customeractivation', { customerId, ...ACTIVATION_FLAGS })).statusCode).toBe(200);
        if (step === 'unhold') expect((await t.call('POST', `/v1/customerhold/${customerId}`)).statusCode).toBe(200);
        if (step === 'uncancel')
          expect((await t.call('POST', '/v1/customercancellation', { customerId, cancellationOption: 'None' })).statusCode).toBe(204);
        const write: Write = {
          hold: { method: 'POST', url: `/v1/customerhold/${customerId}` } as Write,
          unhold: {
            method: 'POST',
            url: '/v1/customers/unhold',
            body: { customerId, serviceStartOption: 'NoChargesForMissedPeriods' },
          } as Write,
          cancel: { method: 'POST', url: '/v1/customercancellation', body: { customerId, cancellationOption: 'None' } } as Write,
          uncancel: { method: 'POST', url: `/v1/customers/uncancel/${customerId}` } as Write,
        }[step];
        return { write, other: { method: 'POST', url: `/v1/customerhold/${customerId + 1}` } };
      },
    ]),
    [
      'webhook endpoint create',
      async () => {
        const write: Write = {
          method: 'POST',
          url: '/v1/webhookEndpoints',
          body: { url: 'http://127.0.0.1:9/a', eventTypes: ['customer.created'] },
        };
        return { write, other: { ...write, body: { url: 'http://127.0.0.1:9/b', eventTypes: ['customer.created'] } } };
      },
    ],
    [
      'portal session',
      async () => {
        const customerId = await newCustomer(t);
        return {
          write: { method: 'POST', url: '/v1/portalSessions', body: { customerId } },
          other: { method: 'POST', url: '/v1/portalSessions', body: { customerId: customerId + 1 } },
        };
      },
    ],
    [
      'capture token',
      async () => {
        const customerId = await newCustomer(t);
        return {
          write: { method: 'POST', url: '/v1/captureTokens', body: { customerId } },
          other: { method: 'POST', url: '/v1/captureTokens', body: { customerId, expiresInSeconds: 60 } },
        };
      },
    ],
    [
      'bulk submit',
      async () => {
        const customerId = await newCustomer(t);
        const body = { accountUploadType: 'bulkPayment', data: [{ customerId, amount: 5, paymentMethod: 'Cash' }] };
        return {
          write: { method: 'POST', url: '/v1/bulkPaymentSubmit', body },
          other: { method: 'POST', url: '/v1/bulkPaymentSubmit', body: { ...body, reference: 'other' } },
        };
      },
    ],
    [
      'test clock advance',
      async () => {
        const now = new Date((await t.call('GET', '/v1/testclock')).json().now as string);
        const to = (days: number) => new Date(now.getTime() + days * 86_400_000).toISOString();
        return {
          write: { method: 'POST', url: '/v1/testclock/advance', body: { to: to(1) } },
          other: { method: 'POST', url: '/v1/testclock/advance', body: { to: to(2) } },
        };
      },
    ],
  ];

  it.each(families)(
    '%s: the same key twice answers the first status and body, does it once; another request with the key is 422',
    async (_name, setUp) => {
      const { write, other } = await setUp();
      const key = `family-${++keyCount}`;
      const first = await keyed(write, key);
      expect(first.statusCode, first.body).toBeLessThan(300);
      const before = await effects();
      const again = await keyed(write, key);
      expectReplayOf(first, again);
      expect(await effects()).toBe(before);
      const refused = await keyed(other, key);
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().Errors[0].Key).toBe('Idempotency-Key');
      // Without a key nothing changes: the same write runs again.
      expect((await t.call(write.method, write.url, write.body)).headers['idempotent-replayed']).toBeUndefined();
    },
  );
});
