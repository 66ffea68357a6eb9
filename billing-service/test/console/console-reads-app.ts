import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ConsoleRole } from '../../src/console/operator.js';
import { consoleCall as consoleHttpCall, firstOwner, invitedOperator, type ConsoleAgent } from './console-helpers.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * The real app (fresh database) and, per account and role, a signed-in operator (the account's first owner
 * invites the others), so every read goes through the console's real session, role and CSRF checks.
 */
export interface ConsoleReadsApp extends TestApp {
  /** A console request as an operator of `account` with `role` (default viewer); JSON body when given. */
  consoleCall(method: 'GET' | 'POST', url: string, options?: { as?: TestAccount; role?: ConsoleRole }): Promise<LightMyRequestResponse>;
  /** consoleCall, expecting `status`, returning the parsed body. */
  consoleRead<T = any>(url: string, options?: { as?: TestAccount; role?: ConsoleRole; status?: number }): Promise<T>;
}

export async function startConsoleReadsApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<ConsoleReadsApp> {
  const t = await startTestApp(options);
  const agents = new Map<string, Promise<ConsoleAgent>>();
  const agentFor = (account: TestAccount, role: ConsoleRole): Promise<ConsoleAgent> => {
    const key = `${account.accountId}:${role}`;
    let agent = agents.get(key);
    if (!agent) {
      agent =
        role === 'owner'
          ? firstOwner(t, `owner-${account.accountId}@example.test`, account)
          : agentFor(account, 'owner').then((owner) => invitedOperator(t, owner, `${role}-${account.accountId}@example.test`, role));
      agents.set(key, agent);
    }
    return agent;
  };
  const consoleCall: ConsoleReadsApp['consoleCall'] = async (method, url, callOptions = {}) =>
    consoleHttpCall(t, await agentFor(callOptions.as ?? t.account, callOptions.role ?? 'viewer'), method, url);
  return Object.assign(t, {
    consoleCall,
    async consoleRead(url: string, readOptions: { as?: TestAccount; role?: ConsoleRole; status?: number } = {}) {
      const res = await consoleCall('GET', url, readOptions);
      expect(res.statusCode, res.body).toBe(readOptions.status ?? 200);
      return res.json();
    },
  });
}
