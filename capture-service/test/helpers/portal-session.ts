import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestAccount, TestApp } from '../../../billing-service/test/helpers/test-app.js';
import { freshIp, startCaptureTest, type CaptureTest } from './capture-test.js';

/** A signed-in portal session as a browser holds it: the cookie and the CSRF token. */
export interface PortalBrowser {
  customerId: number;
  call(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<LightMyRequestResponse>;
}

/** The shop opens a portal session for the customer (full scope) and the customer's browser opens its one-use link. */
export async function signInToPortal(
  billing: TestApp,
  app: FastifyInstance,
  customerId: number,
  account?: TestAccount,
): Promise<PortalBrowser> {
  const link = await billing.call('POST', '/v1/portalSessions', { customerId }, account ? { as: account } : {});
  expect(link.statusCode, link.body).toBe(200);
  const opened = await app.inject({
    method: 'POST',
    url: '/portal/open',
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/json' },
    // The token travels in the fragment; a browser that did not ask for the link clicks through its confirmation.
    payload: JSON.stringify({ token: new URLSearchParams(new URL(link.json().url).hash.slice(1)).get('token'), confirmed: true }),
  });
  expect(opened.statusCode, opened.body).toBe(200);
  const headers = { cookie: String(opened.headers['set-cookie']).split(';')[0]!, 'x-portal-csrf': opened.json().csrfToken as string };
  return {
    customerId,
    call: (method, url, body) =>
      app.inject({
        method,
        url,
        remoteAddress: freshIp(),
        headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      }),
  };
}

/** The spec's error body with this status; its first error's Key and Code (a decline adds a `declineCode` item after it). */
export function refusalOf(res: LightMyRequestResponse, status: number): { Key: string; Code: string | undefined } {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ HttpStatusCode: status });
  expect(body.Errors.length, res.body).toBeGreaterThan(0);
  expect(body.Errors.every((e: { Key: unknown }) => typeof e.Key === 'string')).toBe(true);
  return { Key: body.Errors[0].Key, Code: body.Errors[0].Code };
}

/** The billing API and a capture host whose portal tests run on (no tokenless captures: every card needs a token). */
export async function startPortalCaptureTest(): Promise<{ t: CaptureTest; app: FastifyInstance }> {
  const t = await startCaptureTest();
  return { t, app: await t.build({ capture: { tokenlessCapture: 'never' } }) };
}

/** Starts them before the file's tests and closes them after: the handle is filled in once they run. */
export function portalCaptureTest(): { t: CaptureTest; app: FastifyInstance } {
  const live = {} as { t: CaptureTest; app: FastifyInstance };
  beforeAll(async () => {
    Object.assign(live, await startPortalCaptureTest());
  }, 60_000);
  afterAll(() => live.t?.close());
  return live;
}
