import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { activeCustomer, newCustomer, readCustomer } from '../helpers/api-fixtures.js';

/**
 * Requests as a published Node client of the vendor API sends them (axios 0.21):
 * empty POSTs with a form Content-Type, PascalCase JSON bodies. Sent byte for
 * byte over a real socket, so nothing in between tidies them up.
 */

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => t?.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends these exact bytes and reads the whole answer (the request asks the server to close). */
function sendRaw(bytes: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes);
  });
}

/** What axios 0.21 writes for `axios.post(url)` with no data and a Basic key. */
function axiosEmptyPost(path: string): string {
  return [
    `POST ${path} HTTP/1.1`,
    'Accept: application/json, text/plain, */*',
    'Content-Type: application/x-www-form-urlencoded',
    `Authorization: Basic ${t.account.apiKey}`,
    'User-Agent: axios/0.21.4',
    'Content-Length: 0',
    `Host: 127.0.0.1:${port}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
}

function axiosJsonRequest(method: string, path: string, json: string): string {
  return [
    `${method} ${path} HTTP/1.1`,
    'Accept: application/json, text/plain, */*',
    'Content-Type: application/json;charset=utf-8',
    `Authorization: Basic ${t.account.apiKey}`,
    'User-Agent: axios/0.21.4',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `Host: 127.0.0.1:${port}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

describe('a POST without a body, whatever its Content-Type', () => {
  it('holds a customer from an empty form-typed POST', async () => {
    const { customerId } = await activeCustomer(t);
    const res = await sendRaw(axiosEmptyPost(`/v1/customerhold/${customerId}`));
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).status).toBe('Hold');
    expect((await readCustomer(t, customerId)).status).toBe('Hold');
  });

  it('uncancels a customer from an empty form-typed POST', async () => {
    const { customerId } = await activeCustomer(t);
    const cancelled = await t.call('POST', '/v1/customercancellation', { customerId, cancellationOption: 'None' });
    expect(cancelled.statusCode, cancelled.body).toBe(204);
    const res = await sendRaw(axiosEmptyPost(`/v1/customers/uncancel/${customerId}`));
    expect(res.status, res.body).toBe(200);
    expect((await readCustomer(t, customerId)).status).toBe('Active');
  });

  it('treats a whitespace-only body of any type as no body', async () => {
    const { customerId } = await activeCustomer(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/customerhold/${customerId}`,
      headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'text/plain' },
      payload: ' \r\n ',
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('answers a route that needs a body with 400 naming the missing field, never 415', async () => {
    const res = await sendRaw(axiosEmptyPost('/v1/customers/unhold'));
    expect(res.status).toBe(400);
    const keys = JSON.parse(res.body).Errors.map((e: { Key: string }) => e.Key);
    expect(keys).toContain('customerId');
    expect(keys).toContain('serviceStartOption');
  });

  it('still refuses a non-empty body that is not JSON with 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/customers',
      headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'firstName=Ann',
    });
    expect(res.statusCode).toBe(415);
    expect(errorsOf(res)[0]!.Value).toMatch(/application\/json/);
  });
});

describe('JSON property names are case-insensitive', () => {
  it('stores a PascalCase customer, nested objects included, and answers in camelCase', async () => {
    const body = JSON.stringify({
      FirstName: 'Pascal',
      LASTNAME: 'Case',
      primaryemail: 'pascal@example.com',
      CustomerAcquisition: { Source: 'Fair', Medium: 'Print' },
    });
    const res = await sendRaw(axiosJsonRequest('POST', '/v1/customers', body));
    expect(res.status, res.body).toBe(200);
    const created = JSON.parse(res.body);
    expect(created).toMatchObject({ firstName: 'Pascal', lastName: 'Case', primaryEmail: 'pascal@example.com' });
    expect(created.customerAcquisition).toMatchObject({ source: 'Fair', medium: 'Print' });
    expect(created).not.toHaveProperty('FirstName');
    expect((await readCustomer(t, created.id)).firstName).toBe('Pascal');
  });

  it("binds the vendor samples' DefaultCancelOption in a billing setting", async () => {
    const customerId = await newCustomer(t);
    const current = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    const pascal = Object.fromEntries(
      Object.entries({ ...current, defaultCancelOption: 'Unearned' }).map(([k, v]) => [k[0]!.toUpperCase() + k.slice(1), v]),
    );
    const res = await t.call('PUT', '/v1/customerbillingsetting', pascal);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().defaultCancelOption).toBe('Unearned');
    expect((await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json().defaultCancelOption).toBe('Unearned');
  });

  it('refuses two spellings of one field in one object, naming the field', async () => {
    const res = await t.call('POST', '/v1/customers', { firstName: 'One', FirstName: 'Two' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('firstName');
    const nested = await t.call('POST', '/v1/customers', { customerAcquisition: { source: 'a', SOURCE: 'b' } });
    expect(nested.statusCode).toBe(400);
    expect(errorsOf(nested)[0]!.Key).toBe('customerAcquisition.source');
  });

  it('reads query parameter names case-insensitively', async () => {
    const customerId = await newCustomer(t);
    await t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: 11 });
    const preview = await t.call('POST', '/v1/customeractivation?Preview=true&VIEW=sideeffects', {
      customerId,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    expect(preview.statusCode, preview.body).toBe(200);
    expect((await readCustomer(t, customerId)).status).toBe('Draft');
    const list = await t.call('GET', '/v1/customers?PageSize=1&SortOrder=Descending&SortExpression=Id');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(1);
    expect(list.headers['x-pagesize']).toBe('1');
  });
});

describe('CORS and rate-limit headers', () => {
  it('lets a browser preflight PUT and DELETE with the headers the API reads', async () => {
    for (const method of ['PUT', 'DELETE']) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url: '/v1/customers/1',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization,content-type,idempotency-key,x-audit-source',
        },
      });
      expect(res.statusCode).toBe(204);
      const allowed = String(res.headers['access-control-allow-methods'])
        .split(',')
        .map((m) => m.trim());
      expect(allowed).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']));
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key');
    }
    const get = await t.call('GET', '/v1/customers', undefined, { headers: { origin: 'https://shop.example' } });
    const exposed = String(get.headers['access-control-expose-headers']);
    expect(exposed).toContain('X-Rate-Limit-Remaining-Minute');
    expect(exposed).toContain('X-NextPage');
  });

  it('sends the X-Rate-Limit headers on authenticated 404 and 405 answers', async () => {
    const notFound = await t.call('GET', '/v1/no-such-thing');
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['x-rate-limit-remaining-minute']).toBeDefined();
    const wrongMethod = await t.call('DELETE', '/v1/customers');
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers['x-rate-limit-limit-day']).toBeDefined();
    const anonymous = await t.app.inject({ method: 'GET', url: '/v1/no-such-thing' });
    expect(anonymous.statusCode).toBe(404);
  });
});
