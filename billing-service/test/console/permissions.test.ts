import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorRole } from '../../src/db/schema.js';
import { DECLARED_OPERATION_IDS, proxiedOperationId } from '../../src/console/proxied-operations.js';
import { leastRoleFor } from '../../src/console/permissions.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { codesOf, consoleCall, firstOwner, invitedOperator, type ConsoleAgent } from './console-helpers.js';

// The route×role table: every /console/api route and every /v1 operation the proxy may forward, as the
// app registered them, for every role, allowed or refused as README "Console" says. The expectation
// below is the README's rule written out again (not read from the declarations), so a route declared
// with the wrong permission, or a new route declaring none, fails here.
let t: TestApp;
const agents = new Map<OperatorRole, ConsoleAgent>();
const ROLES: OperatorRole[] = ['viewer', 'support', 'billing', 'owner'];
const ORDER: OperatorRole[] = ['viewer', 'support', 'billing', 'owner'];
beforeAll(async () => {
  t = await startTestApp({ app: { testClocks: true } });
  const owner = await firstOwner(t, 'owner@perm.example');
  agents.set('owner', owner);
  for (const role of ['viewer', 'support', 'billing'] as const)
    agents.set(role, await invitedOperator(t, owner, `${role}@perm.example`, role));
});
afterAll(async () => t?.close());

/** README "Console": every role reads; support writes notes and portal links; billing every other write; owner the team, keys and webhooks. */
function expectedLeastRole(method: string, url: string): OperatorRole {
  const path = url.toLowerCase();
  const read = method === 'GET' || method === 'HEAD';
  if (path.startsWith('/console/api/')) {
    if (/^\/console\/api\/(operators|api-keys)/.test(path) || (path === '/console/api/invitations' && !read)) return 'owner';
    if (/^\/console\/api\/webhook-(deliveries|endpoints)\//.test(path) && !read) return 'owner';
    return 'viewer';
  }
  if (read) return 'viewer';
  if (path.startsWith('/v1/customernotes') || path === '/v1/portalsessions') return 'support';
  if (path.startsWith('/v1/webhook')) return 'owner';
  return 'billing';
}

const allowed = (role: OperatorRole, least: OperatorRole) => ORDER.indexOf(role) >= ORDER.indexOf(least);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A route with every parameter an id nobody has (an allowed write is refused by its own checks, not run). */
const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, '987654321');

/** The codes of an answer, success or refusal (a success, a PDF: none). */
function anyCodes(res: Awaited<ReturnType<typeof consoleCall>>): string[] {
  if (res.statusCode < 400 || !String(res.headers['content-type']).includes('json')) return [];
  return codesOf(res);
}

function proxiedOperations(): Array<{ method: string; url: string }> {
  const seen = new Set<string>();
  return t.app.consoleProxiedRoutes.filter((r) => {
    const id = proxiedOperationId(r.method, r.url);
    if (r.method === 'HEAD' || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

describe('every operation declares its permission', () => {
  it('each /console/api route declares one (or is one of the three open ones), the one README names', () => {
    const routes = t.app.consoleApiRoutes.filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      if (route.consolePublic) continue;
      expect(route.consolePermission, `${route.method} ${route.url}`).toBeDefined();
      expect(route.consoleRole, `${route.method} ${route.url}`).toBe(expectedLeastRole(route.method, route.url));
    }
  });

  it('each /v1 route is declared for the proxy, with the permission README names, and nothing stale is declared', () => {
    const operations = proxiedOperations();
    expect(operations.length).toBeGreaterThan(60);
    const undeclared = operations.filter((r) => !DECLARED_OPERATION_IDS.includes(proxiedOperationId(r.method, r.url)));
    expect(undeclared.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    for (const r of t.app.consoleProxiedRoutes) {
      const permission = r.permission;
      if (!permission) throw new Error(`${r.method} ${r.url} has no permission`);
      expect(leastRoleFor(permission), `${r.method} ${r.url}`).toBe(expectedLeastRole(r.method, r.url));
    }
    const registered = new Set(operations.map((r) => proxiedOperationId(r.method, r.url)));
    expect(DECLARED_OPERATION_IDS.filter((id) => !registered.has(id))).toEqual([]);
  });

  it('a console route declaring no permission stops the app at start', async () => {
    const { default: Fastify } = await import('fastify');
    const { consoleAuth } = await import('../../src/console/console-auth.js');
    const app = Fastify();
    await app.register(consoleAuth, { db: t.database.db, settings: { idleMinutes: 30, absoluteHours: 12 } });
    expect(() => app.get('/console/api/forgotten', async () => ({}))).toThrow(/declares neither consolePermission nor consolePublic/);
    await app.close();
  });
});

describe('route × role, through HTTP', () => {
  it('each /console/api route allows exactly the roles it declares and refuses the others with console_role_forbidden', async () => {
    const routes = t.app.consoleApiRoutes.filter(
      (r) => !r.consolePublic && r.method !== 'HEAD' && !r.url.startsWith('/console/api/v1/') && r.url !== '/console/api/sign-out',
    );
    let refused = 0;
    for (const route of routes)
      for (const role of ROLES) {
        const agent = agents.get(role);
        if (!agent) throw new Error(`no ${role}`);
        const res = await consoleCall(t, agent, route.method as 'POST', concrete(route.url), WRITES.has(route.method) ? {} : undefined);
        const what = `${role} ${route.method} ${route.url}: ${res.statusCode} ${res.body.slice(0, 200)}`;
        if (allowed(role, expectedLeastRole(route.method, route.url))) expect(anyCodes(res), what).not.toContain('console_role_forbidden');
        else {
          refused++;
          expect(res.statusCode, what).toBe(403);
          expect(codesOf(res), what).toEqual(['console_role_forbidden']);
        }
      }
    expect(refused).toBeGreaterThanOrEqual(15);
  });

  it('each /v1 operation through the proxy: allowed to the roles holding its permission, 403 console_role_forbidden for the others', async () => {
    let refused = 0;
    let passed = 0;
    for (const op of proxiedOperations())
      for (const role of ROLES) {
        const agent = agents.get(role);
        if (!agent) throw new Error(`no ${role}`);
        const url = `/console/api${concrete(op.url)}`;
        const res = await consoleCall(t, agent, op.method as 'POST', url, WRITES.has(op.method) ? {} : undefined);
        const what = `${role} ${op.method} ${op.url}: ${res.statusCode} ${res.body.slice(0, 200)}`;
        if (allowed(role, expectedLeastRole(op.method, op.url))) {
          passed++;
          expect(res.statusCode, what).not.toBe(429);
          expect(anyCodes(res), what).not.toContain('console_role_forbidden');
        } else {
          refused++;
          expect(res.statusCode, what).toBe(403);
          expect(codesOf(res), what).toEqual(['console_role_forbidden']);
        }
      }
    expect(refused).toBeGreaterThan(60);
    expect(passed).toBeGreaterThan(150);
  });

  it('every role may sign itself out', async () => {
    for (const role of ROLES) {
      const agent = agents.get(role);
      if (!agent) throw new Error(`no ${role}`);
      const res = await consoleCall(t, agent, 'POST', '/console/api/sign-out', {});
      expect(res.statusCode, role).toBe(204);
      expect((await consoleCall(t, agent, 'GET', '/console/api/session')).statusCode, role).toBe(401);
    }
  });
});
