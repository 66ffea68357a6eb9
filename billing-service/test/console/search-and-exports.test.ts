import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/outbox/webhook-events.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { startReceiver } from '../webhooks/receiver.js';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import type { TestAccount } from '../helpers/test-app.js';
import { consoleCall as consoleHttpCall, firstOwner, invitedOperator } from './console-helpers.js';
import { startConsoleReadsApp, type ConsoleReadsApp } from './console-reads-app.js';

/*
 * The console's plain-text customer search and its CSV exports (issue 38), on an account whose test clock stands
 * at 2027-03-10: every business date in an export is that day, not the wall clock's.
 */

let t: ConsoleReadsApp;
let account: TestAccount;
let ada: number;
let adam: number;
let exactRef: number;
let tricky: number;
let formula: number;
const DAY = '2027-03-10';

beforeAll(async () => {
  t = await startConsoleReadsApp({
    app: { testClocks: true, backgroundTasks: false, webhookWorker: false, webhooks: { allowHttp: true, allowPrivate: true } },
  });
  account = await t.newAccount();
  const advanced = await t.call('POST', '/v1/testclock/advance', { to: `${DAY}T09:00:00Z` }, { as: account });
  expect(advanced.statusCode, advanced.body).toBe(200);
  const customer = (body: Record<string, unknown>) => newCustomer(t, body, account);
  ada = await customer({
    firstName: 'Ada',
    lastName: 'Lovelace',
    primaryEmail: 'ada@engines.test',
    companyName: 'Analytical Engines',
    reference: 'REF-ADA',
  });
  adam = await customer({ firstName: 'Adam', lastName: 'Smith', primaryEmail: 'adam@wealth.test', reference: 'Wealth of Nations' });
  exactRef = await customer({ firstName: 'Zed', lastName: 'Zimmer', reference: 'ada' });
  tricky = await customer({ firstName: 'Quote "Q", Comma', lastName: 'Tricky' });
  formula = await customer({ firstName: 'Eve', lastName: '=HYPERLINK("http://evil.test","x")', companyName: '@SUM(1+1)' });
  // A name over two lines: the API takes no line break, the export must still quote one (an older import may hold it).
  await sql`update customers set company_name = ${'Line one\nLine two'} where id = ${tricky}`.execute(t.database.db);
  // 520 more: more than one export batch (500) and many list pages.
  await sql`insert into customers (account_id, currency, first_name, last_name, created_at)
    select ${account.accountId}::int, 'USD', 'Bulk', 'Row ' || i, ${`${DAY}T09:00:00Z`}::timestamptz from generate_series(1, 520) as i`.execute(
    t.database.db,
  );
  for (let i = 0; i < 55; i += 1) {
    const paid = await t.call(
      'POST',
      '/v1/payments',
      { customerId: ada, amount: i === 0 ? 10.5 : 1, paymentMethod: 'Cash' },
      { as: account },
    );
    expect(paid.statusCode, paid.body).toBe(200);
  }
  await newSubscription(t, adam, undefined, account);
  const activated = await activate(t, adam, ACTIVATION_FLAGS, '', account);
  expect(activated.statusCode, activated.body).toBe(200);
}, 120_000);
afterAll(async () => t?.close());

/** RFC 4180 read back: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    const next = text[i + 1];
    if (quoted && c === '"' && next === '"') {
      field += '"';
      i += 1;
    } else if (c === '"') quoted = !quoted;
    else if (quoted) field += c;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && next === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else field += c;
  }
  expect(field === '' && record.length === 0, 'the last record ends with CRLF').toBe(true);
  return records;
}

async function csv(url: string, role: 'viewer' | 'owner' = 'viewer') {
  const res = await t.consoleCall('GET', url, { as: account, role });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toMatch(new RegExp(`attachment; filename="\\w+-${DAY}\\.csv"`));
  const [header, ...rows] = parseCsv(res.body);
  return { header: header ?? [], rows, text: res.body };
}

const search = (q: string, extra = '') =>
  t.consoleRead(`/console/api/customers/search?q=${encodeURIComponent(q)}${extra}`, { as: account });
const idsOf = (body: { customers: Array<{ id: number }> }) => body.customers.map((c) => c.id);

describe('plain-text search', () => {
  it('finds by first name, last name, company, e-mail, reference and id, case-insensitively; every word must match', async () => {
    expect(idsOf(await search('lovelace'))).toEqual([ada]);
    expect(idsOf(await search('ANALYTICAL'))).toEqual([ada]);
    expect(idsOf(await search('ada@eng'))).toEqual([ada]);
    expect(idsOf(await search('ref-ada'))).toEqual([ada]);
    expect(idsOf(await search('Ada Lovelace'))).toEqual([ada]);
    expect(idsOf(await search('wealth of nations'))).toEqual([adam]);
    expect(idsOf(await search('nobody-like-this'))).toEqual([]);
    const body = await search(String(adam));
    expect(body.customers[0]).toMatchObject({ id: adam, firstName: 'Adam', customerAccountStatus: 'Good' });
  });

  it('ranks an exact reference (or id, or e-mail) first, then newest first, with a total', async () => {
    const body = await search('ada');
    expect(idsOf(body)).toEqual([exactRef, adam, ada]);
    expect(body.total).toBe(3);
    expect(idsOf(await search('adam@wealth.test'))).toEqual([adam]);
  });

  it('filters by status, pages, and counts', async () => {
    expect(idsOf(await search('ada', '&status=Active'))).toEqual([adam]);
    const first = await search('bulk', '&limit=25');
    const second = await search('bulk', '&limit=25&offset=25');
    expect(first.total).toBe(520);
    expect(first.customers).toHaveLength(25);
    expect(new Set([...idsOf(first), ...idsOf(second)]).size).toBe(50);
  });

  it('treats wildcards and LIKE characters as text', async () => {
    expect(idsOf(await search('%'))).toEqual([]);
    expect(idsOf(await search('_da'))).toEqual([]);
  });

  it('refuses an empty query with the spec body (400), and a caller without a session (401)', async () => {
    const empty = await t.consoleCall('GET', '/console/api/customers/search?q=%20', { as: account });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().Errors[0].Key).toBe('q');
    const anonymous = await t.app.inject({ method: 'GET', url: '/console/api/customers/search?q=ada' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('CSV exports', () => {
  it('streams every matching customer in batches, once each, with the search’s filter', async () => {
    const { header, rows } = await csv('/console/api/exports/customers.csv?q=bulk');
    expect([header[0], header[4], header[9]]).toEqual(['Id', 'E-mail', 'Created']);
    expect(rows).toHaveLength(520);
    expect(new Set(rows.map((r) => r[0])).size).toBe(520);
    expect(rows[0]?.slice(1, 3)).toEqual(['Bulk', 'Row 1']);
    expect(rows[0]?.[9]).toBe(`${DAY}T09:00:00.000Z`);
  });

  it('takes the query language too (the same as GET /v1/customers), and refuses a bad one before streaming', async () => {
    const { rows } = await csv(`/console/api/exports/customers.csv?query=${encodeURIComponent('LastName:Row 5*;Status:Draft')}`);
    const expected = Array.from({ length: 520 }, (_, i) => `Row ${i + 1}`).filter((name) => name.startsWith('Row 5'));
    expect(expected).toHaveLength(32);
    expect(rows.map((r) => r[2]).sort()).toEqual(expected.sort());
    const bad = await t.consoleCall('GET', '/console/api/exports/customers.csv?query=nonsense', { as: account });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/json/);
    const both = await t.consoleCall('GET', '/console/api/exports/customers.csv?q=a&query=LastName:a', { as: account });
    expect(both.statusCode).toBe(400);
  });

  it('quotes commas, quotes and line breaks (RFC 4180) and defuses formulas', async () => {
    const { rows, text } = await csv('/console/api/exports/customers.csv?q=tricky');
    expect(rows[0]?.slice(1, 4)).toEqual(['Quote "Q", Comma', 'Tricky', 'Line one\nLine two']);
    expect(text).toContain('"Quote ""Q"", Comma"');
    const evil = (await csv('/console/api/exports/customers.csv?q=eve')).rows[0];
    expect(evil?.[0]).toBe(String(formula));
    expect(evil?.[2]).toBe(`'=HYPERLINK("http://evil.test","x")`);
    expect(evil?.[3]).toBe(`'@SUM(1+1)`);
  });

  it('exports payments with exact amounts dated on the account clock, more than a list page, all or failures, per customer', async () => {
    const { header, rows } = await csv(`/console/api/exports/payments.csv?customerId=${ada}`);
    expect(header.slice(0, 6)).toEqual(['Id', 'Date', 'Customer id', 'Customer', 'Amount', 'Currency']);
    expect(rows).toHaveLength(55);
    const oldest = rows.at(-1);
    expect(oldest?.slice(1, 6)).toEqual([`${DAY}T09:00:00.000Z`, String(ada), 'Analytical Engines', '10.50', 'USD']);
    expect(rows[0]?.[4]).toBe('1.00');
    expect((await csv('/console/api/exports/payments.csv?outcome=failed')).rows).toEqual([]);
  });

  it('exports invoices with exact totals and the account clock’s dates', async () => {
    const { rows } = await csv(`/console/api/exports/invoices.csv?customerId=${adam}`);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.[2]).toBe(String(adam));
    expect(row?.[4]).toBe('Posted');
    expect(row?.[5]?.slice(0, 10)).toBe(DAY);
    expect(row?.[7]).toMatch(/^\d+\.\d{2}$/);
    expect(Number(row?.[7])).toBeGreaterThan(0);
  });

  it('dates a payment on the Payments read by the account clock, as the customer page does', async () => {
    const { payments } = await t.consoleRead('/console/api/payments?limit=1', { as: account });
    const api = (await t.call('GET', `/v1/payments/${payments[0].id}`, undefined, { as: account })).json();
    expect(payments[0].effectiveAt).toBe(api.effectiveTimestamp);
    expect(payments[0].effectiveAt.slice(0, 10)).toBe(DAY);
  });

  it('keeps to the operator’s account: another account’s customers are neither found nor exported', async () => {
    const other = await t.newAccount();
    const stranger = await newCustomer(t, { firstName: 'Ada', lastName: 'Elsewhere', reference: 'ada' }, other);
    await t.call('POST', '/v1/payments', { customerId: stranger, amount: 3, paymentMethod: 'Cash' }, { as: other });
    expect(idsOf(await search('ada'))).not.toContain(stranger);
    expect(idsOf(await search(String(stranger)))).toEqual([]);
    expect((await csv(`/console/api/exports/payments.csv?customerId=${stranger}`)).rows).toEqual([]);
    expect((await csv(`/console/api/exports/invoices.csv?customerId=${stranger}`)).rows).toEqual([]);
    expect((await csv('/console/api/exports/customers.csv?q=elsewhere')).rows).toEqual([]);
  });

  it('is the session’s: no cookie, no export', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/api/exports/payments.csv' });
    expect(res.statusCode).toBe(401);
  });
});

describe('webhook test event', () => {
  it('lists the event types an endpoint can subscribe to, for the endpoint form', async () => {
    const { eventTypes } = await t.consoleRead('/console/api/webhook-event-types', { as: account });
    expect(eventTypes).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect(eventTypes).toContain('invoice.paid');
  });

  it('is delivered to that endpoint alone, signed with its secret, by the delivery worker', async () => {
    const receiver = await startReceiver();
    try {
      const owner = await firstOwner(t, 'delivery-owner@example.test', await t.newAccount());
      const create = async (path: string) => {
        const res = await consoleHttpCall(t, owner, 'POST', '/console/api/v1/webhookEndpoints', {
          url: receiver.url(path),
          eventTypes: ['*'],
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json() as { id: number; secret: string };
      };
      const tested = await create('/tested');
      await create('/other');
      const sent = await consoleHttpCall(t, owner, 'POST', `/console/api/webhook-endpoints/${tested.id}/test`);
      expect(sent.statusCode, sent.body).toBe(202);
      const worker = new WebhookDeliveryWorker(t.database.db, { allowHttp: true, allowPrivate: true, timeoutMs: 2_000 }, t.app.log);
      await worker.runDue(new Date(Date.now() + 1_000));
      const arrivals = receiver.received.filter((r) => r.path === '/tested' || r.path === '/other');
      expect(arrivals.map((r) => r.path)).toEqual(['/tested']);
      const payload = new Webhook(tested.secret).verify(arrivals[0]!.body, arrivals[0]!.headers) as {
        id: string;
        type: string;
        data: unknown;
      };
      expect(payload).toMatchObject({ id: sent.json().eventId, type: 'webhookEndpoint.test', data: { endpointId: tested.id } });
    } finally {
      await receiver.close();
    }
  });

  it('sends webhookEndpoint.test to one enabled endpoint (owners), refuses a disabled one and other roles', async () => {
    const owner = await firstOwner(t, 'hooks-owner@example.test');
    const created = await consoleHttpCall(t, owner, 'POST', '/console/api/v1/webhookEndpoints', {
      url: 'http://127.0.0.1:9/hooks',
      eventTypes: ['invoice.paid'],
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id;
    const sent = await consoleHttpCall(t, owner, 'POST', `/console/api/webhook-endpoints/${id}/test`);
    expect(sent.statusCode, sent.body).toBe(202);
    const { deliveries } = (await consoleHttpCall(t, owner, 'GET', `/console/api/webhook-deliveries?endpointId=${id}`)).json();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ eventId: sent.json().eventId, eventType: 'webhookEndpoint.test', status: 'Pending' });
    const billingAgent = await invitedOperator(t, owner, 'hooks-billing@example.test', 'billing');
    const billing = await consoleHttpCall(t, billingAgent, 'POST', `/console/api/webhook-endpoints/${id}/test`);
    expect(billing.statusCode).toBe(403);
    const disabled = await consoleHttpCall(t, owner, 'PUT', `/console/api/v1/webhookEndpoints/${id}`, {
      url: 'http://127.0.0.1:9/hooks',
      eventTypes: ['invoice.paid'],
      status: 'Disabled',
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect((await consoleHttpCall(t, owner, 'POST', `/console/api/webhook-endpoints/${id}/test`)).statusCode).toBe(409);
    // Another account's endpoint is unknown here.
    const theirs = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/theirs', eventTypes: ['*'] }, { as: account });
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect((await consoleHttpCall(t, owner, 'POST', `/console/api/webhook-endpoints/${theirs.json().id}/test`)).statusCode).toBe(404);
  });
});
