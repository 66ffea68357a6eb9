import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newCustomer } from '../../billing-service/test/helpers/api-fixtures.js';
import { refusalOf, signInToPortal, portalCaptureTest, type PortalBrowser } from './helpers/portal-session.js';

/*
 * Card testing through the portal (issue 38): a stranger who gets a portal session (a Draft customer made through a
 * checkout signs in by e-mail) must not be able to try card after card. The first attempt needs no CAPTCHA; after a
 * decline each needs one; after three declines within an hour nothing is tried until the hour has passed.
 */

const env = portalCaptureTest();
afterEach(() => vi.useRealTimers());

const DECLINED = '4000000000000002';
/** app.inject's host: the portal's page, where the customer solves the CAPTCHA. */
const PORTAL_HOST = 'localhost';

interface Minted {
  token: string;
  riskToken: string;
  clientIp: string;
  captchaRequired: boolean;
}

async function mint(portal: PortalBrowser): Promise<Minted> {
  const res = await portal.call('POST', '/portal/api/card-capture-token', {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** As the portal's card fields send it: no public key, the capture token, the CAPTCHA's answer when the form showed it. */
function tryCard(portal: PortalBrowser, minted: Minted, cardNumber: string, recaptcha = ''): Promise<LightMyRequestResponse> {
  return env.t.post(
    {
      ...env.t.params(portal.customerId),
      publicApiKey: '',
      cardNumber,
      recaptcha,
      captureToken: minted.token,
      riskToken: minted.riskToken,
      clientIp: minted.clientIp,
      makeDefault: true,
    },
    { app: env.app },
  );
}

const solved = () => env.t.token(PORTAL_HOST);

async function attemptsOf(customerId: number) {
  return env.t.billing.database.db
    .selectFrom('portalCardAttempts')
    .select(['outcome', 'captchaSolved'])
    .where('customerId', '=', customerId)
    .orderBy('id')
    .execute();
}

describe("the portal's card form against card testing", () => {
  it('four declined cards in a row: the 2nd needs a CAPTCHA, the 4th is refused for the hour even with one; a good card an hour later works', async () => {
    // A Draft customer, as anyone can make through a checkout.
    const customerId = await newCustomer(env.t.billing);
    const portal = await signInToPortal(env.t.billing, env.app, customerId);

    // 1st: no CAPTCHA asked; declined, and the decline spends the token (one token, one attempt).
    const first = await mint(portal);
    expect(first.captchaRequired).toBe(false);
    expect(refusalOf(await tryCard(portal, first, DECLINED), 400).Code).toBe('card_declined');
    // The spent token no longer names a portal session: it is refused before any gateway call.
    expect((await tryCard(portal, first, DECLINED)).statusCode).toBe(401);

    // 2nd: the form is told to show the CAPTCHA; without its answer the capture is refused, and the token kept.
    const second = await mint(portal);
    expect(second.captchaRequired).toBe(true);
    expect(refusalOf(await tryCard(portal, second, DECLINED), 400)).toEqual({ Key: 'recaptcha', Code: 'captcha_required' });
    // An answer solved elsewhere than the portal's page is not one.
    expect(refusalOf(await tryCard(portal, second, DECLINED, env.t.token('evil.example')), 400)).toEqual({
      Key: 'recaptcha',
      Code: 'captcha_failed',
    });
    expect(refusalOf(await tryCard(portal, second, DECLINED, solved()), 400).Code).toBe('card_declined');

    // 3rd, with its CAPTCHA: declined. A 4th token minted before it cannot outrun the count.
    const third = await mint(portal);
    const fourth = await mint(portal);
    expect(refusalOf(await tryCard(portal, third, DECLINED, solved()), 400).Code).toBe('card_declined');

    // 4th: refused for the rest of the hour, CAPTCHA or not; the form's token too.
    const refused = await tryCard(portal, fourth, '4242424242424242', solved());
    expect(refusalOf(refused, 429).Code).toBe('card_attempts_exhausted');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const noToken = await portal.call('POST', '/portal/api/card-capture-token', {});
    expect(refusalOf(noToken, 429).Code).toBe('card_attempts_exhausted');
    expect(noToken.headers['retry-after']).toBeDefined();
    expect(await attemptsOf(customerId)).toEqual([
      { outcome: 'declined', captchaSolved: false },
      { outcome: 'declined', captchaSolved: true },
      { outcome: 'declined', captchaSolved: true },
    ]);

    // An hour later on the wall clock (these limits ignore test clocks): a good card is saved, with a CAPTCHA
    // still asked until no decline is within the hour.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3_601_000);
    const later = await signInToPortal(env.t.billing, env.app, customerId);
    const again = await mint(later);
    expect(again.captchaRequired).toBe(false);
    const saved = await tryCard(later, again, '4242424242424242');
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await later.call('GET', '/portal/api/overview')).json().defaultCard).toMatchObject({ id: saved.json().id, lastFour: '4242' });
  }, 60_000);

  it('attempts racing each other are counted one after the other: of two first attempts, one is tried, the other needs the CAPTCHA', async () => {
    const customerId = await newCustomer(env.t.billing);
    const portal = await signInToPortal(env.t.billing, env.app, customerId);
    const [a, b] = [await mint(portal), await mint(portal)];
    expect(a.captchaRequired || b.captchaRequired).toBe(false);
    const answers = await Promise.all([tryCard(portal, a, DECLINED), tryCard(portal, b, DECLINED)]);
    const codes = answers.map((res) => res.json().Errors[0].Code).sort();
    expect(codes).toEqual(['captcha_required', 'card_declined']);
    expect(await attemptsOf(customerId)).toEqual([{ outcome: 'declined', captchaSolved: false }]);
  }, 60_000);

  it('with two declines counted, three attempts at once with their CAPTCHAs: one is tried, two are refused for the hour', async () => {
    const customerId = await newCustomer(env.t.billing);
    const portal = await signInToPortal(env.t.billing, env.app, customerId);
    expect(refusalOf(await tryCard(portal, await mint(portal), DECLINED), 400).Code).toBe('card_declined');
    expect(refusalOf(await tryCard(portal, await mint(portal), DECLINED, solved()), 400).Code).toBe('card_declined');
    const tokens = [await mint(portal), await mint(portal), await mint(portal)];
    const answers = await Promise.all(tokens.map((minted) => tryCard(portal, minted, DECLINED, solved())));
    expect(answers.map((res) => res.statusCode).sort()).toEqual([400, 429, 429]);
    expect((await attemptsOf(customerId)).map((a) => a.outcome)).toEqual(['declined', 'declined', 'declined']);
  }, 60_000);

  it('a saved card counts for nothing: the next attempt needs no CAPTCHA', async () => {
    const customerId = await newCustomer(env.t.billing);
    const portal = await signInToPortal(env.t.billing, env.app, customerId);
    const saved = await tryCard(portal, await mint(portal), '4242424242424242');
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await mint(portal)).captchaRequired).toBe(false);
    expect(await attemptsOf(customerId)).toEqual([{ outcome: 'stored', captchaSolved: false }]);
  }, 60_000);

  it("tells the card form how to show the CAPTCHA: Google's widget with the account's site key, allowed by the portal pages' CSP", async () => {
    const app = await env.t.build({ capture: { tokenlessCapture: 'never', recaptchaSiteKey: 'portal-site-key' } });
    const customerId = await newCustomer(env.t.billing);
    const portal = await signInToPortal(env.t.billing, app, customerId);
    const minted = await portal.call('POST', '/portal/api/card-capture-token', {});
    expect(minted.json()).toMatchObject({ captchaRequired: false, captcha: { mode: 'google', siteKey: 'portal-site-key' } });
    const page = await app.inject({ method: 'GET', url: '/portal/' });
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toMatch(/script-src 'self' https:\/\/www\.google\.com\/recaptcha\/ https:\/\/www\.gstatic\.com\/recaptcha\//);
    expect(policy).toMatch(/frame-src 'self'.* https:\/\/www\.google\.com\/recaptcha\//);
    // Without a site key (the other tests' app) the pages allow no third-party script.
    expect(String((await env.app.inject({ method: 'GET', url: '/portal/' })).headers['content-security-policy'])).toContain(
      "script-src 'self';",
    );
  }, 60_000);
});
