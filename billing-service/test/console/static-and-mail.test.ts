import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { acceptInvitation, consoleCall, firstOwner, invitedOperator, PASSWORD, type ConsoleAgent } from './console-helpers.js';

// The console's built files, invitation e-mails over SMTP, and each operator's own budget of /v1 calls.
const distDir = mkdtempSync(path.join(tmpdir(), 'renew-console-dist-'));
mkdirSync(path.join(distDir, 'assets'));
writeFileSync(
  path.join(distDir, 'index.html'),
  '<!doctype html><title>Renew console</title><script type="module" src="/console/assets/app-abc123.js"></script>',
);
writeFileSync(path.join(distDir, 'assets', 'app-abc123.js'), 'console.log("console");\n');

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
let owner: ConsoleAgent;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await startTestApp({ app: { console: { distDir }, email: { smtpUrl: smtp.url, from: 'console@shop.test', pollMs: 60_000 } } });
  owner = await firstOwner(t, 'owner@shop.example');
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  rmSync(distDir, { recursive: true, force: true });
});

describe('the built console', () => {
  it('serves index.html at /console and /console/, and its assets, without an API key and unframeable', async () => {
    for (const url of ['/console', '/console/']) {
      const page = await t.app.inject({ method: 'GET', url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('/console/assets/app-abc123.js');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
    }
    const script = await t.app.inject({ method: 'GET', url: '/console/assets/app-abc123.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.body).toBe('console.log("console");\n');
    const missing = await t.app.inject({ method: 'GET', url: '/console/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().Errors.map((e: { Code?: string }) => e.Code)).toEqual(['not_found']);
    const dotted = await t.app.inject({ method: 'GET', url: '/console/assets/..%2Findex.html' });
    expect(dotted.statusCode).toBe(404);
  });
});

describe('invitation e-mails', () => {
  it('with SMTP configured, the link is e-mailed to the invited address as well as returned', async () => {
    const res = await consoleCall(t, owner, 'POST', '/console/api/invitations', { email: 'new.hire@shop.example', role: 'viewer' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().emailed).toBe(true);
    const [mail] = await smtp.mailsTo('new.hire@shop.example', 1);
    expect(mail).toBeDefined();
    expect(mail!.from).toBe('console@shop.test');
    expect(mail!.text).toContain(res.json().link);
    expect((await acceptInvitation(t, res.json().link, { name: 'New Hire', password: PASSWORD })).operator.role).toBe('viewer');
  });
});

describe("operators' budgets", () => {
  it("each operator's /v1 calls count against the account's limits in a budget of its own", async () => {
    const other = await invitedOperator(t, owner, 'other@shop.example', 'viewer');
    const remaining = async (agent: ConsoleAgent) => {
      const res = await consoleCall(t, agent, 'GET', '/console/api/v1/customers');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['x-rate-limit-limit-day']).toBe(String(t.catalog.rateLimits.perDay));
      // The day's window (the minute's could turn between two calls).
      return Number(res.headers['x-rate-limit-remaining-day']);
    };
    const first = await remaining(owner);
    expect(await remaining(owner)).toBe(first - 1);
    // Another operator's, and the API key's, are apart.
    const others = await remaining(other);
    expect(others).toBe(t.catalog.rateLimits.perDay - 1);
    const keyed = await t.call('GET', '/v1/customers');
    expect(Number(keyed.headers['x-rate-limit-remaining-day'])).toBe(t.catalog.rateLimits.perDay - 1);
    expect(await remaining(owner)).toBe(first - 2);
  });
});
