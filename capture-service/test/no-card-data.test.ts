import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/**
 * After a run of every kind of request (success, collection, failed collection,
 * declines, validation failures, bad keys, malformed bodies, card data in the
 * query string), no card number or CVV is in any text column of any table,
 * nor anywhere in the log.
 */
let t: CaptureTest;
let logged: string[];
let app: FastifyInstance;
beforeAll(async () => {
  t = await startCaptureTest();
  logged = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logged.push(String(chunk));
      done();
    },
  });
  app = await t.build({ logger: { level: 'trace', stream } });
});
afterAll(async () => t?.close());

/** Card numbers and CVVs of the run: each CVV used once, none a substring of anything else the run produces. */
const RUN: Array<{
  cardNumber: string;
  cvv: string;
  encoding: 'json' | 'form' | 'query';
  extra?: Record<string, unknown>;
  status: number;
}> = [
  { cardNumber: '4242424242424242', cvv: '913', encoding: 'json', status: 200 },
  {
    cardNumber: '5555555555554444',
    cvv: '857',
    encoding: 'form',
    extra: { paymentCollectOptions: { collectionAmount: '20.00' } },
    status: 200,
  },
  { cardNumber: '378282246310005', cvv: '7319', encoding: 'query', status: 200 },
  {
    cardNumber: '4000000000009995',
    cvv: '642',
    encoding: 'query',
    extra: { paymentCollectOptions: { collectionAmount: '9.00' } },
    status: 400,
  },
  {
    cardNumber: '4000000000000341',
    cvv: '586',
    encoding: 'form',
    extra: { paymentCollectOptions: { collectionAmount: '9.00' } },
    status: 400,
  },
  { cardNumber: '4000000000000002', cvv: '528', encoding: 'json', status: 400 },
  { cardNumber: '4000000000000127', cvv: '731', encoding: 'query', status: 400 },
  { cardNumber: '4111111111111112', cvv: '376', encoding: 'query', status: 400 }, // fails Luhn
  { cardNumber: '6011111111111117', cvv: '461', encoding: 'query', extra: { expirationMonth: '13' }, status: 400 },
  { cardNumber: '3530111333300000', cvv: '389', encoding: 'query', extra: { publicApiKey: 'pk_not_a_key_at_all' }, status: 401 },
  { cardNumber: '5105105105105100', cvv: '274', encoding: 'query', extra: { recaptcha: 'forged' }, status: 400 },
];
const OTHERS = { cardNumber: '4012888888881881', cvv: '695' };
const cvvPattern = (cvv: string) => new RegExp(`(?<![0-9A-Za-z.])${cvv}(?![0-9A-Za-z.])`);
/**
 * A CVV in a log line: a JSON string value ("389") or a URL/form value (cvv=389).
 * Bare numbers are left out: a log line's pid, time or responseTime can hold the same digits.
 */
const loggedCvvPattern = (cvv: string) => new RegExp(`"${cvv}"|=${cvv}(?![0-9])`);

function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => (received += String(chunk)));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

async function textOfEveryTable(): Promise<string> {
  const db = t.billing.database.db;
  const columns = await sql<{ tableName: string; columnName: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' and data_type in ('text', 'character varying', 'character', 'json', 'jsonb')
  `.execute(db);
  expect(columns.rows.length).toBeGreaterThan(50);
  const parts: string[] = [];
  for (const { tableName, columnName } of columns.rows) {
    const rows = await sql<{
      v: string;
    }>`select ${sql.ref(columnName)}::text as v from ${sql.table(tableName)} where ${sql.ref(columnName)} is not null`.execute(db);
    for (const row of rows.rows) parts.push(`${tableName}.${columnName}=${row.v}`);
  }
  return parts.join('\n');
}

describe('card data is never stored or logged', () => {
  it('runs every kind of request', async () => {
    const customerId = await t.customer();
    for (const step of RUN) {
      const res = await t.post(t.params(customerId, { cardNumber: step.cardNumber, cvv: step.cvv, ...step.extra }), {
        app,
        encoding: step.encoding,
      });
      expect(res.statusCode, `${step.cardNumber}: ${res.body}`).toBe(step.status);
      expect(res.body).not.toContain(step.cardNumber);
      expect(res.body).not.toMatch(cvvPattern(step.cvv));
    }
    const { cardNumber, cvv } = OTHERS;
    const p = t.params(customerId, OTHERS);
    const bodies: Array<[string, string]> = [
      ['application/json', `{"cardNumber":"${cardNumber}","cvv":"${cvv}",`], // malformed JSON
      ['application/x-www-form-urlencoded', `cardNumber=${cardNumber}&cvv=${cvv}&cvv=${cvv}1`], // repeated field
      ['text/plain', `cardNumber=${cardNumber}&cvv=${cvv}`], // unsupported type
    ];
    for (const [type, payload] of bodies) {
      const res = await app.inject({ method: 'POST', url: '/api/paymentsv2', headers: { 'content-type': type }, payload });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.body).not.toContain(cardNumber);
    }
    const get = await app.inject({ method: 'GET', url: `/api/paymentsv2?cardNumber=${cardNumber}&cvv=${cvv}` });
    expect(get.statusCode).toBe(405);
    const lost = await app.inject({ method: 'POST', url: `/nowhere?cardNumber=${cardNumber}&cvv=${cvv}` });
    expect(lost.statusCode).toBe(404);
    expect(lost.body).not.toContain(cardNumber);
    const json = await app.inject({
      method: 'POST',
      url: '/api/paymentsv2',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ ...p, customerId: 'x' }),
    });
    expect(json.statusCode).toBe(400);
    // A malformed HTTP request carrying card data in its request line: answered, its bytes not logged.
    await app.listen({ host: '127.0.0.1', port: 0 });
    const answer = await rawRequest(
      (app.server.address() as AddressInfo).port,
      `POST /api/paymentsv2?cardNumber=${cardNumber}&cvv=${cvv} HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(answer).toContain('"HttpStatusCode":400');
    // Anything that logs card fields or a body by mistake is redacted.
    app.log.info({ body: { cardNumber, cvv }, cardNumber, payment: { cvv }, req: { body: { cardNumber } } }, 'redaction check');
  });

  it('no text column of any table holds a card number or a CVV', async () => {
    const text = await textOfEveryTable();
    // The dump covers what was stored: the last fours and the gateway tokens are there.
    expect(text).toMatch(/payment_methods\.last_four=4242/);
    expect(text).toMatch(/payment_methods\.gateway_token=sbx_ok_/);
    for (const { cardNumber, cvv } of [...RUN, OTHERS]) {
      expect(text).not.toContain(cardNumber);
      expect(text).not.toMatch(cvvPattern(cvv));
    }
    expect(text.toLowerCase()).not.toContain('cvv');
    expect(text.toLowerCase()).not.toContain('cardnumber');
  });

  it('no log line holds a card number or a CVV, and URLs are logged without their query string', async () => {
    const log = logged.join('');
    expect(logged.length).toBeGreaterThan(20);
    expect(log).toContain('"url":"/api/paymentsv2?[redacted]"');
    expect(log).toContain('"url":"/api/paymentsv2"');
    expect(log).toMatch(/"cardNumber":"\[redacted\]".*"msg":"redaction check"/);
    for (const { cardNumber, cvv } of [...RUN, OTHERS]) {
      expect(log).not.toContain(cardNumber);
      expect(log).not.toMatch(loggedCvvPattern(cvv));
    }
    expect(log).not.toContain(t.account.publicApiKey);
  });
});
