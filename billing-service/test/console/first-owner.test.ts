import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { billingBanner, startBillingService } from '../../src/start-billing.js';

// `npm start`'s console line: the first owner's one-use link while the default account has no operator.
const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-console-first-owner-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const env = { RENEW_DATA_DIR: dataDir, RENEW_API_PORT: '0', RENEW_LOG_LEVEL: 'silent', RENEW_BILLING_CLOCK_MS: '0', DATABASE_URL: '' };

describe('the first owner', () => {
  it('is invited at start while the account has no operator: the banner prints the link, which signs the owner up once', async () => {
    const first = await startBillingService(env, 'api');
    let link: string;
    try {
      link = first.consoleFirstOwnerLink!;
      expect(link).toMatch(new RegExp(`^${first.url}/console/#/invitation/rci_[A-Za-z0-9_-]{43}$`));
      expect(billingBanner(first, 'api')).toContain(`Console: ${first.url}/console/ — first owner sign-in: ${link}`);
      const token = link.slice(link.lastIndexOf('/') + 1);
      const shown = await fetch(`${first.url}/console/api/invitations/${token}`);
      expect(await shown.json()).toEqual({ email: null, role: 'owner', firstOwner: true });
      const accepted = await fetch(`${first.url}/console/api/invitations/${token}/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Founder', password: 'a long enough password', email: 'founder@shop.example' }),
      });
      expect(accepted.status).toBe(200);
      expect(accepted.headers.get('set-cookie')).toMatch(/^renew_console=rcs_/);
    } finally {
      await first.close();
    }
    const second = await startBillingService(env, 'api');
    try {
      expect(second.consoleFirstOwnerLink).toBeUndefined();
      const banner = billingBanner(second, 'api');
      expect(banner).toContain(`Console: ${second.url}/console/`);
      expect(banner).not.toContain('first owner');
    } finally {
      await second.close();
    }
  }, 60_000);
});
