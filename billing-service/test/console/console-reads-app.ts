import type { FastifyRequest, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { consoleReadRoutes } from '../../src/console/reads/routes.js';
import { CONSOLE_ROLES, type ConsoleRole, type Operator } from '../../src/console/operator.js';
import { ApiError } from '../../src/http/errors.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * Test-only: the real app (fresh database) with the console's read routes, and a stand-in for the console's
 * session plugin (written apart, wired at merge): header `x-test-operator: <accountId>:<role>` is the signed-in
 * operator, and the route's `consoleRole` is enforced by rank as the real plugin does.
 */
export const OPERATOR_HEADER = 'x-test-operator';

const rank = (role: ConsoleRole) => CONSOLE_ROLES.length - CONSOLE_ROLES.indexOf(role);

async function standInSession(request: FastifyRequest) {
  const needed = request.routeOptions.config?.consoleRole;
  if (!needed) return;
  const header = request.headers[OPERATOR_HEADER];
  const [accountId, role] = typeof header === 'string' ? header.split(':') : [];
  if (!accountId || !CONSOLE_ROLES.includes(role as ConsoleRole)) throw ApiError.unauthorized('no console session');
  const operator: Operator = { id: 1, accountId: Number(accountId), email: 'ops@example.test', name: 'Ops', role: role as ConsoleRole };
  if (rank(operator.role) < rank(needed)) throw new ApiError(403, [{ Key: 'role', Value: `the ${needed} role is needed` }]);
  request.operator = operator;
}

export interface ConsoleReadsApp extends TestApp {
  /** A console request as an operator of `account` with `role` (default viewer); JSON body when given. */
  consoleCall(method: 'GET' | 'POST', url: string, options?: { as?: TestAccount; role?: ConsoleRole }): Promise<LightMyRequestResponse>;
  /** consoleCall, expecting `status`, returning the parsed body. */
  consoleRead<T = any>(url: string, options?: { as?: TestAccount; role?: ConsoleRole; status?: number }): Promise<T>;
}

export async function startConsoleReadsApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<ConsoleReadsApp> {
  const t = await startTestApp(options);
  await t.app.register(async (scope) => {
    scope.addHook('onRequest', standInSession);
    await scope.register(consoleReadRoutes);
  });
  const consoleCall: ConsoleReadsApp['consoleCall'] = (method, url, callOptions = {}) =>
    t.app.inject({
      method,
      url,
      headers: { [OPERATOR_HEADER]: `${(callOptions.as ?? t.account).accountId}:${callOptions.role ?? 'viewer'}` },
    });
  return Object.assign(t, {
    consoleCall,
    async consoleRead(url: string, readOptions: { as?: TestAccount; role?: ConsoleRole; status?: number } = {}) {
      const res = await consoleCall('GET', url, readOptions);
      expect(res.statusCode, res.body).toBe(readOptions.status ?? 200);
      return res.json();
    },
  });
}
