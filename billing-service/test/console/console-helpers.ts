import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { firstOwnerInvitation } from '../../src/console/operators/service.js';
import { BASE_URL, type TestAccount, type TestApp } from '../helpers/test-app.js';

/** A signed-in console operator: its cookie and CSRF token, as the browser holds them. */
export interface ConsoleAgent {
  cookie: string;
  csrfToken: string;
  operator: { id: number; email: string; name: string; role: string; totpEnabled: boolean };
}

export const PASSWORD = 'correct horse battery staple';

/** The session cookie's `name=value` from a Set-Cookie answer (undefined: none set). */
export function sessionCookieOf(res: LightMyRequestResponse): string | undefined {
  const header = res.headers['set-cookie'];
  const cookies = Array.isArray(header) ? header : header ? [header] : [];
  const found = cookies.find((c) => c.startsWith('renew_console='));
  return found?.split(';')[0];
}

/** A console request, with the agent's cookie and (unless told otherwise) its CSRF token. */
export function consoleCall(
  t: TestApp,
  agent: ConsoleAgent | undefined,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  options: { csrf?: string | null; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const csrf = options.csrf === undefined ? agent?.csrfToken : options.csrf;
  return t.app.inject({
    method,
    url,
    headers: {
      ...(agent ? { cookie: agent.cookie } : {}),
      ...(csrf ? { 'x-csrf-token': csrf } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

function agentFrom(res: LightMyRequestResponse): ConsoleAgent {
  expect(res.statusCode, res.body).toBe(200);
  const cookie = sessionCookieOf(res);
  expect(cookie).toBeDefined();
  const body = res.json();
  return { cookie: cookie!, csrfToken: body.csrfToken, operator: body.operator };
}

/** The token at the end of an invitation link (`…/console/#/invitation/<token>`). */
export function tokenOf(link: string): string {
  return link.slice(link.lastIndexOf('/') + 1);
}

export async function acceptInvitation(t: TestApp, link: string, body: Record<string, unknown>): Promise<ConsoleAgent> {
  return agentFrom(await consoleCall(t, undefined, 'POST', `/console/api/invitations/${tokenOf(link)}/accept`, body));
}

/** The account's first owner, through the first-owner link `npm start` prints. */
export async function firstOwner(t: TestApp, email: string, account: TestAccount = t.account): Promise<ConsoleAgent> {
  const link = await firstOwnerInvitation(t.database.db, account.accountId, BASE_URL);
  expect(link).toBeDefined();
  return acceptInvitation(t, link!, { name: 'First Owner', password: PASSWORD, email });
}

/** An operator of the owner's account with this role, invited by the owner and signed in. */
export async function invitedOperator(t: TestApp, owner: ConsoleAgent, email: string, role: string): Promise<ConsoleAgent> {
  const invited = await consoleCall(t, owner, 'POST', '/console/api/invitations', { email, role });
  expect(invited.statusCode, invited.body).toBe(201);
  return acceptInvitation(t, invited.json().link, { name: `${role} operator`, password: PASSWORD });
}

export async function signIn(t: TestApp, body: Record<string, unknown>, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return consoleCall(t, undefined, 'POST', '/console/api/sign-in', body, remoteAddress ? { remoteAddress } : {});
}

export function signedInAgent(res: LightMyRequestResponse): ConsoleAgent {
  return agentFrom(res);
}

/** The error items' codes of a spec error body. */
export function codesOf(res: LightMyRequestResponse): string[] {
  return (res.json().Errors as Array<{ Code?: string }>).map((e) => e.Code ?? '');
}
