import { authenticatePortalSession, openPortalLink, type OpenedPortalLink } from '../../src/portal/links.js';
import type { TestApp } from './test-app.js';

/** The token of a portal URL (`/portal/open#token=…`; older links carried it in the query). */
export function portalTokenOf(url: string): string {
  const parsed = new URL(url);
  const token = new URLSearchParams(parsed.hash.slice(1)).get('token') ?? parsed.searchParams.get('token');
  if (!token) throw new Error(`no portal token in ${url}`);
  return token;
}

/** Opens a portal URL as the customer who clicked through its confirmation, and returns the session it made. */
export async function openPortalUrl(t: TestApp, url: string) {
  const opened = (await openPortalLink(t.app.ctx, portalTokenOf(url), { confirmed: true })) as OpenedPortalLink;
  return authenticatePortalSession(t.app.ctx, opened.sessionToken);
}
