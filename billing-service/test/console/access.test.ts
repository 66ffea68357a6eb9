import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_PROCESS_CALLER_HEADER } from '../../src/http/in-process-callers.js';
import { customerWithInvoice, newCustomer } from '../helpers/api-fixtures.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { codesOf, consoleCall, firstOwner, invitedOperator, type ConsoleAgent } from './console-helpers.js';

// Who may do what in the console (README "Console"): every route's protection, the role table of the
// in-process /v1 proxy, what it passes through, and the security headers.
let t: TestApp;
let owner: ConsoleAgent;
let viewer: ConsoleAgent;
let support: ConsoleAgent;
let billing: ConsoleAgent;
beforeAll(async () => {
  t = await startTestApp();
  owner = await firstOwner(t, 'owner@shop.example');
  viewer = await invitedOperator(t, owner, 'viewer@shop.example', 'viewer');
  support = await invitedOperator(t, owner, 'support@shop.example', 'support');
  billing = await invitedOperator(t, owner, 'billing@shop.example', 'billing');
});
afterAll(async () => t?.close());

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A route's URL with its parameters filled in (a wildcard: a /v1 collection). */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z]+/g, '1').replace(/\*$/, 'customers');
}

describe('every /console/api route, as registered', () => {
  it('the routes are enumerated from the app, and only sign-in and the invitation pages are open', () => {
    const routes = t.app.consoleApiRoutes;
    expect(routes.length).toBeGreaterThan(10);
    const open = routes.filter((r) => r.consolePublic && r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`);
    expect(open.sort()).toEqual([
      'GET /console/api/invitations/:token',
      'POST /console/api/invitations/:token/accept',
      'POST /console/api/sign-in',
    ]);
  });

  it('none is in the billing API’s OpenAPI document, and none asks for an API key', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.toLowerCase().startsWith('/console'))).toEqual([]);
    const withKey = await t.call('GET', '/console/api/session');
    expect(withKey.statusCode).toBe(401);
    expect(codesOf(withKey)).toEqual(['console_session_required']);
  });

  it('answers 401 console_session_required without a session, and with a cookie nobody issued', async () => {
    const guarded = t.app.consoleApiRoutes.filter((r) => !r.consolePublic);
    for (const route of guarded) {
      const url = concrete(route.url);
      const body = WRITE_METHODS.has(route.method) ? {} : undefined;
      const none = await consoleCall(t, undefined, route.method as 'GET', url, body);
      expect(none.statusCode, `${route.method} ${url}`).toBe(401);
      if (route.method !== 'HEAD') expect(codesOf(none), `${route.method} ${url}`).toEqual(['console_session_required']);
      const forged = await consoleCall(
        t,
        { cookie: 'renew_console=rcs_forged', csrfToken: 'x', operator: viewer.operator },
        route.method as 'GET',
        url,
        body,
      );
      expect(forged.statusCode, `${route.method} ${url}`).toBe(401);
    }
  });

  it("refuses each of a viewer's writes above the viewer role with 403 console_role_forbidden", async () => {
    const writes = t.app.consoleApiRoutes.filter((r) => !r.consolePublic && WRITE_METHODS.has(r.method));
    // The writes a viewer may make are its own session's, and the proxy (which has its own role table, below).
    const viewerWrites = writes.filter((r) => r.consoleRole === 'viewer').map((r) => `${r.method} ${r.url}`);
    expect([...new Set(viewerWrites)].sort()).toEqual(
      [
        'DELETE /console/api/v1/*',
        'PATCH /console/api/v1/*',
        'POST /console/api/sign-out',
        'POST /console/api/totp/confirm',
        'POST /console/api/totp/disable',
        'POST /console/api/totp/setup',
        'POST /console/api/v1/*',
        'PUT /console/api/v1/*',
      ].sort(),
    );
    const above = writes.filter((r) => r.consoleRole !== 'viewer');
    expect(above.length).toBeGreaterThanOrEqual(3);
    for (const route of above) {
      const res = await consoleCall(t, viewer, route.method as 'POST', concrete(route.url), {});
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(codesOf(res)).toEqual(['console_role_forbidden']);
    }
  });

  it("refuses a viewer's /v1 writes through the proxy with 403, and lets it read", async () => {
    const customerId = await newCustomer(t, { firstName: 'Viewed' });
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/console/api/v1/customers', { firstName: 'Nope' }],
      ['PUT', '/console/api/v1/customers', { id: customerId, firstName: 'Nope' }],
      ['POST', '/console/api/v1/customernotes', { customerId, note: 'Nope' }],
      ['POST', '/console/api/v1/portalSessions', { customerId }],
      ['POST', '/console/api/v1/refunds', { originalPaymentId: 1, amount: 1 }],
      ['POST', `/console/api/v1/customerhold/${customerId}`, undefined],
      ['DELETE', '/console/api/v1/customerNotes/1', undefined],
      ['POST', '/console/api/v1/webhookEndpoints', { url: 'https://example.com/hook' }],
    ];
    for (const [method, url, body] of writes) {
      const res = await consoleCall(t, viewer, method as 'POST', url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(codesOf(res)).toEqual(['console_role_forbidden']);
    }
    const read = await consoleCall(t, viewer, 'GET', `/console/api/v1/customers/${customerId}`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().firstName).toBe('Viewed');
    // Nothing was written by the refused requests.
    expect((await t.call('GET', `/v1/customers/${customerId}/notes`)).json()).toEqual([]);
  });

  it('owner-only routes refuse billing and support too', async () => {
    for (const agent of [support, billing]) {
      const res = await consoleCall(t, agent, 'GET', '/console/api/operators');
      expect(res.statusCode).toBe(403);
      expect(codesOf(res)).toEqual(['console_role_forbidden']);
    }
    expect((await consoleCall(t, owner, 'GET', '/console/api/operators')).statusCode).toBe(200);
  });
});

describe('the /v1 proxy by role', () => {
  it('support adds a note and creates a portal session, but cannot refund or create a customer', async () => {
    const customerId = await newCustomer(t, { firstName: 'Supported' });
    const note = await consoleCall(t, support, 'POST', '/console/api/v1/customernotes', { customerId, note: 'Called about March' });
    expect(note.statusCode, note.body).toBe(200);
    expect(note.json().note).toBe('Called about March');
    const portal = await consoleCall(t, support, 'POST', '/console/api/v1/portalSessions', { customerId });
    expect(portal.statusCode, portal.body).toBe(200);
    expect(portal.json().url).toMatch(/^https?:\/\//);
    const refund = await consoleCall(t, support, 'POST', '/console/api/v1/refunds', { originalPaymentId: 1, amount: 1 });
    expect(refund.statusCode).toBe(403);
    expect(codesOf(refund)).toEqual(['console_role_forbidden']);
    const create = await consoleCall(t, support, 'POST', '/console/api/v1/customers', { firstName: 'Nope' });
    expect(create.statusCode).toBe(403);
    // Case and escapes do not get around the table (routes ignore case; %72 is "r").
    for (const url of ['/console/api/v1/REFUNDS', '/console/api/v1/%72efunds', '/console/api/v1/customernotes/../refunds']) {
      const sneaky = await consoleCall(t, support, 'POST', url, { originalPaymentId: 1, amount: 1 });
      expect([400, 403], url).toContain(sneaky.statusCode);
    }
  });

  it('billing refunds; the audit log names the operator’s e-mail as actor and Console as source', async () => {
    const { customerId } = await customerWithInvoice(t, { firstName: 'Refunded' });
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 30, paymentMethod: 'Cash' });
    expect(paid.statusCode, paid.body).toBe(200);
    const refund = await consoleCall(t, billing, 'POST', '/console/api/v1/refunds', {
      originalPaymentId: paid.json().id,
      amount: '10.00',
      reference: 'goodwill',
    });
    expect(refund.statusCode, refund.body).toBe(200);
    const entries = await sql<{
      actor: string;
      source: string;
    }>`select actor, source from audit_log where entity_type = 'Refund' and entity_id = ${refund.json().id}`.execute(t.database.db);
    expect(entries.rows.length).toBeGreaterThan(0);
    for (const row of entries.rows) expect(row).toEqual({ actor: 'billing@shop.example', source: 'Console' });
    // The header a client could send to claim a source is not passed on.
    const note = await consoleCall(
      t,
      billing,
      'POST',
      '/console/api/v1/customernotes',
      { customerId, note: 'x' },
      { headers: { 'x-audit-source': 'Forged' } },
    );
    expect(note.json().userWhoCreatedNote).toBe('Console');
  });

  it('billing cannot change webhook endpoints; the owner can', async () => {
    const billingTry = await consoleCall(t, billing, 'POST', '/console/api/v1/webhookEndpoints', {
      url: 'https://example.com/hook',
      events: ['customer.created'],
    });
    expect(billingTry.statusCode).toBe(403);
    const ownerTry = await consoleCall(t, owner, 'POST', '/console/api/v1/webhookEndpoints', { url: 'https://example.com/hook' });
    expect(ownerTry.statusCode).not.toBe(403);
  });

  it('passes list headers (X-MaxCount) and a PDF’s bytes through', async () => {
    await newCustomer(t, { firstName: 'Listed' });
    const direct = await t.call('GET', '/v1/customers?pageSize=1');
    const proxied = await consoleCall(t, viewer, 'GET', '/console/api/v1/customers?pageSize=1');
    expect(proxied.statusCode, proxied.body).toBe(200);
    expect(proxied.headers['x-maxcount']).toBeDefined();
    expect(proxied.headers['x-maxcount']).toBe(direct.headers['x-maxcount']);
    expect(proxied.json()).toEqual(direct.json());
    expect(proxied.headers['x-rate-limit-limit-minute']).toBeDefined();

    const { invoiceId } = await customerWithInvoice(t, { firstName: 'Printed' });
    const pdfDirect = await t.call('GET', `/v1/Invoices/pdf/${invoiceId}`);
    const pdf = await consoleCall(t, viewer, 'GET', `/console/api/v1/Invoices/pdf/${invoiceId}`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe(pdfDirect.headers['content-type']);
    expect(pdf.headers['content-disposition']).toBe(pdfDirect.headers['content-disposition']);
    expect(pdf.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.rawPayload.equals(pdfDirect.rawPayload)).toBe(true);
  });

  it('a proxied error keeps the spec’s error body', async () => {
    const res = await consoleCall(t, viewer, 'GET', '/console/api/v1/customers/987654321');
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)[0]!.Value).toMatch(/not found/);
  });

  it('an outside request carrying the in-process header is refused, on /v1 and through the proxy', async () => {
    const outside = await t.app.inject({ method: 'GET', url: '/v1/customers', headers: { [IN_PROCESS_CALLER_HEADER]: 'guessed-nonce' } });
    expect(outside.statusCode).toBe(401);
    // Even beside a valid API key: the header is not something clients send.
    const withKey = await t.call('GET', '/v1/customers', undefined, { headers: { [IN_PROCESS_CALLER_HEADER]: 'guessed-nonce' } });
    expect(withKey.statusCode).toBe(401);
    // Through the console too: the header never comes from outside.
    const proxied = await consoleCall(t, viewer, 'GET', '/console/api/v1/customers', undefined, {
      headers: { [IN_PROCESS_CALLER_HEADER]: 'guessed-nonce' },
    });
    expect(proxied.statusCode).toBe(401);
    expect((await consoleCall(t, viewer, 'GET', '/console/api/v1/customers')).statusCode).toBe(200);
  });
});

describe('security headers', () => {
  it('every /console and /console/api answer forbids framing; the API is not cached', async () => {
    for (const url of ['/console', '/console/', '/console/api/session', '/console/api/no-such-route', '/console/assets/missing.js']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      if (url.startsWith('/console/api')) expect(res.headers['cache-control'], url).toBe('no-store');
    }
    const signedIn = await consoleCall(t, viewer, 'GET', '/console/api/session');
    expect(signedIn.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('/console serves the page (or, unbuilt, says how to build it) without an API key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });
});
