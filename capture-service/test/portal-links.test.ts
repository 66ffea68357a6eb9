/**
 * Every portal link a customer can hold leads somewhere: a link opened elsewhere than the browser that asked
 * for it asks whose portal it is first; a cross-site post is refused (login forgery); a used or expired link,
 * an unknown one, and a session that ended each answer a page in the customer's language with a way to a new
 * link; sign-in budgets count per (e-mail, client address), so one address cannot lock a customer out.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageOf } from '../../billing-service/src/notifications/email-content.js';
import { newCustomer } from '../../billing-service/test/helpers/api-fixtures.js';
import { BASE_URL } from '../../billing-service/test/helpers/test-app.js';
import { freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

let t: CaptureTest;
let emailing: FastifyInstance;
beforeAll(async () => {
  t = await startCaptureTest();
  emailing = await t.build({ emailEnabled: true });
}, 60_000);
afterAll(() => t?.close());

const app = () => emailing;
const db = () => t.billing.database.db;
const OWN_ORIGIN = 'http://localhost:80';
let n = 0;

/** A customer past checkout (Draft customers never sign in), with a primary address of its own. */
async function customer(body: Record<string, unknown> = {}) {
  n += 1;
  const email = `links.${n}.${Date.now()}@example.com`;
  const id = await newCustomer(t.billing, { primaryEmail: email, ...body });
  await db().updateTable('customers').set({ status: 'Active' }).where('id', '=', id).execute();
  return { id, email };
}

const tokenOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get('token')!;

async function sessionLink(customerId: number, body: Record<string, unknown> = {}) {
  const res = await t.billing.call('POST', '/v1/portalSessions', { customerId, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().url as string;
}

/** The link's page posting its token, as a browser does (same-origin form post). */
function formPost(
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string | undefined> = {},
  remoteAddress = freshIp(),
) {
  const sent = { 'content-type': 'application/x-www-form-urlencoded', origin: OWN_ORIGIN, 'sec-fetch-site': 'same-origin', ...headers };
  return app().inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: Object.fromEntries(Object.entries(sent).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    payload: new URLSearchParams(fields).toString(),
  });
}

const cookiesOf = (res: LightMyRequestResponse) => [res.headers['set-cookie'] ?? []].flat().map(String);
const sessionsOf = (customerId: number) => db().selectFrom('portalSessions').select('id').where('customerId', '=', customerId).execute();
const signInMails = (customerId: number) =>
  db()
    .selectFrom('emailOutbox')
    .selectAll()
    .where('emailType', '=', 'PortalSignIn')
    .where('customerId', '=', customerId)
    .orderBy('id')
    .execute();

/** The sign-in link of the customer's newest sign-in e-mail, once written (after the answer). */
async function newestSignInLink(customerId: number, count = 1): Promise<string> {
  await expect.poll(async () => (await signInMails(customerId)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  const message = await messageOf((await signInMails(customerId)).at(-1)!);
  return /https?:\/\/\S+\/portal\/open\?lang=\w+#token=pl_[\w-]+/.exec(message.text)![0];
}

function signIn(body: Record<string, unknown>, remoteAddress = freshIp(), cookie?: string) {
  return app().inject({
    method: 'POST',
    url: '/portal/sign-in',
    remoteAddress,
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    payload: JSON.stringify(body),
  });
}

describe('login forgery: a token of customer A opened in the victim’s browser', () => {
  it('is refused when another site posts it, and asks for a click when the page posts it in a browser that did not ask', async () => {
    const a = await customer({ language: 'fr' });
    const token = tokenOf(await sessionLink(a.id, { locale: 'fr' }));
    // The attacker's page posts the form (already "confirmed") across sites: refused, a page for the browser, JSON for JSON.
    const forged = await formPost(
      '/portal/open',
      { token, confirmed: '1' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'accept-language': 'fr-FR,fr;q=0.9' },
    );
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toContain('text/html');
    expect(forged.body).toContain('<html lang="fr">');
    expect(forged.body).toContain('Ce lien a été ouvert depuis un autre site');
    const noFetchMetadata = await formPost(
      '/portal/open',
      { token, confirmed: '1' },
      { origin: 'https://evil.example', 'sec-fetch-site': undefined },
    );
    expect(noFetchMetadata.statusCode).toBe(403);
    const byFetch = await app().inject({
      method: 'POST',
      url: '/portal/open',
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-site' },
      payload: JSON.stringify({ token, confirmed: true }),
    });
    expect(byFetch.statusCode).toBe(403);
    expect(byFetch.json().Errors[0]).toMatchObject({ Key: 'Origin', Code: 'cross_site_refused' });
    expect(await sessionsOf(a.id)).toEqual([]);

    // The page's own post, in a browser that never asked for this link: whose portal it is, and a button; nothing else.
    const asked = await formPost('/portal/open', { token, lang: 'fr' });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.body).toContain(`<strong>${a.email.slice(0, 1)}•••@example.com</strong>`);
    expect(asked.body).toContain(`<strong>${t.billing.catalog.account.name}</strong>`);
    expect(asked.body).toContain('name="confirmed" value="1"');
    expect(asked.body).not.toContain('<script');
    expect(cookiesOf(asked)).toEqual([]);
    expect(await sessionsOf(a.id)).toEqual([]);
    // The click opens it.
    const clicked = await formPost('/portal/open', { token, confirmed: '1' });
    expect(clicked.statusCode, clicked.body).toBe(303);
    expect(cookiesOf(clicked).join()).toMatch(/^renew_portal=ps_/);
    expect(await sessionsOf(a.id)).toHaveLength(1);
  });

  it('a sign-in link opens at once in the browser that asked for it, and asks first anywhere else', async () => {
    const c = await customer();
    const asked = await signIn({ account: t.account.publicApiKey, email: c.email, locale: 'de' });
    expect(asked.statusCode).toBe(202);
    const nonce = cookiesOf(asked).find((cookie) => cookie.startsWith('renew_portal_sign_in='))!;
    expect(nonce).toMatch(/^renew_portal_sign_in=pn_[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=900$/);
    const token = tokenOf(await newestSignInLink(c.id));
    const stored = await db().selectFrom('portalLinks').select('browserNonceHash').where('customerId', '=', c.id).executeTakeFirstOrThrow();
    expect(stored.browserNonceHash).toMatch(/^[0-9a-f]{64}$/);
    const elsewhere = await formPost(
      '/portal/open',
      { token },
      { cookie: 'renew_portal_sign_in=pn_someone-elses-nonce-000000000000000000000000' },
    );
    expect(elsewhere.statusCode).toBe(200);
    expect(elsewhere.body).toContain('Weiter zum Abrechnungsportal?');
    const here = await formPost('/portal/open', { token }, { cookie: nonce.split(';')[0]! });
    expect(here.statusCode, here.body).toBe(303);
    expect(here.headers.location).toBe('/portal/?lang=de');
  });
});

describe('a link that no longer opens leads to a new one', () => {
  it('a used link answers a page in its language with one button that sends a new link to the address on file', async () => {
    const c = await customer({ language: 'fr' });
    const token = tokenOf(await sessionLink(c.id, { locale: 'fr' }));
    expect((await formPost('/portal/open', { token, confirmed: '1' })).statusCode).toBe(303);
    const again = await formPost('/portal/open', { token, confirmed: '1' }, { 'accept-language': 'de' });
    expect(again.statusCode).toBe(410);
    expect(again.headers['content-type']).toContain('text/html');
    expect(again.body).toContain('<html lang="fr">');
    expect(again.body).toContain('Ce lien a déjà servi');
    expect(again.body).toContain('<form id="resend" method="post" action="/portal/resend">');
    expect(again.body).toContain(`name="token" value="${token}"`);
    expect(again.body).toContain('M’envoyer un nouveau lien');

    const known = await formPost('/portal/resend', { token, lang: 'fr' });
    const unknown = await formPost('/portal/resend', { token: 'pl_nobody-issued-this', lang: 'fr' });
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    expect(known.body).toContain('un nouveau lien de connexion est en route');
    // The new link is bound to this browser (the resend set its cookie) and speaks French.
    expect(await newestSignInLink(c.id)).toMatch(/\?lang=fr#token=/);
    expect(cookiesOf(known).join()).toContain('renew_portal_sign_in=pn_');
  });

  it('an expired e-mail link answers 410 with the way forward; JSON callers keep the error body', async () => {
    const c = await customer();
    const url = await sessionLink(c.id);
    await db()
      .updateTable('portalLinks')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('customerId', '=', c.id)
      .execute();
    const page = await formPost('/portal/open', { token: tokenOf(url), confirmed: '1' }, { 'accept-language': 'es-ES,es;q=0.9' });
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('<html lang="es">');
    expect(page.body).toContain('Este enlace ha caducado');
    const json = await app().inject({
      method: 'POST',
      url: '/portal/open',
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token: tokenOf(url), confirmed: true }),
    });
    expect(json.statusCode).toBe(410);
    expect(json.json().Errors[0].Code).toBe('portal_link_expired');
  });

  it('an unknown token answers 400 with the e-mail field, in the language of ?lang, else of the browser', async () => {
    const byLang = await formPost('/portal/open', { token: 'pl_made-up', lang: 'de' }, { 'accept-language': 'fr' });
    expect(byLang.statusCode).toBe(400);
    expect(byLang.body).toContain('<html lang="de">');
    expect(byLang.body).toContain('<form id="sign-in" method="post" action="/portal/sign-in">');
    expect(byLang.body).toContain('type="email"');
    const byBrowser = await formPost('/portal/open', { token: '' }, { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' });
    expect(byBrowser.statusCode).toBe(400);
    expect(byBrowser.body).toContain('<html lang="fr">');
  });

  it('a session that ended, visiting /portal/, gets a page whose one button sends a new link (the cookie names the customer)', async () => {
    const c = await customer();
    const opened = await formPost('/portal/open', { token: tokenOf(await sessionLink(c.id, { locale: 'es' })), confirmed: '1' });
    const cookie = cookiesOf(opened)[0]!.split(';')[0]!;
    expect(cookiesOf(opened)[0]).toContain(`Max-Age=${30 * 24 * 3600}`);
    const live = await app().inject({ method: 'GET', url: '/portal/', remoteAddress: freshIp(), headers: { cookie } });
    expect(live.body).toContain('<renew-portal>');
    await db().updateTable('portalSessions').set({ endedAt: new Date() }).where('customerId', '=', c.id).execute();
    const ended = await app().inject({ method: 'GET', url: '/portal/', remoteAddress: freshIp(), headers: { cookie } });
    expect(ended.statusCode).toBe(401);
    expect(ended.body).toContain('Su sesión ha terminado');
    expect(ended.body).toContain('<form id="resend" method="post" action="/portal/resend">');
    expect((await formPost('/portal/resend', {}, { cookie })).statusCode).toBe(202);
    expect(await newestSignInLink(c.id)).toContain('?lang=es#token=');
  });

  it('a pay link whose invoices are settled opens on the overview saying nothing is left to pay', async () => {
    const c = await customer({ language: 'fr' });
    const token = tokenOf(await sessionLink(c.id, { flow: 'payInvoices', locale: 'fr' }));
    const opened = await formPost('/portal/open', { token, confirmed: '1' });
    expect(opened.headers.location).toBe('/portal/?lang=fr&notice=nothingToPay');
    const page = await app().inject({ method: 'GET', url: opened.headers.location as string, remoteAddress: freshIp() });
    expect(page.body).toContain('Plus rien à payer : vos factures sont réglées.');
  });
});

describe('sign-in budgets and the sign-in page without a key', () => {
  it('30 requests from one address for an e-mail leave another address free to get its link', async () => {
    const c = await customer();
    const x = freshIp();
    const answers: number[] = [];
    for (let i = 0; i < 30; i += 1) answers.push((await signIn({ account: t.account.publicApiKey, email: c.email }, x)).statusCode);
    expect(answers.slice(0, 3)).toEqual([202, 202, 202]);
    expect(answers.slice(3).every((status) => status === 429)).toBe(true);
    await newestSignInLink(c.id, 3);
    const y = await signIn({ account: t.account.publicApiKey, email: c.email }, freshIp());
    expect(y.statusCode).toBe(202);
    await newestSignInLink(c.id, 4);
  });

  it('without ?account= the page works: the link goes out from the account of this host; a form post answers a page', async () => {
    const c = await customer();
    const page = await app().inject({ method: 'GET', url: '/portal/sign-in?lang=fr', remoteAddress: freshIp() });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="account" value=""');
    const asked = await formPost('/portal/sign-in', { account: '', email: c.email, locale: 'fr' });
    expect(asked.statusCode).toBe(202);
    expect(asked.headers['content-type']).toContain('text/html');
    expect(asked.body).toContain('Si cette adresse appartient à un client');
    expect(await newestSignInLink(c.id)).toMatch(new RegExp(`^${BASE_URL}/portal/open\\?lang=fr#token=`));
  });

  it('a Draft customer (anyone who starts a checkout) gets the same answer and no link', async () => {
    const email = `draft.${Date.now()}@example.com`;
    const draft = await newCustomer(t.billing, { primaryEmail: email });
    const res = await signIn({ account: t.account.publicApiKey, email });
    expect(res.statusCode).toBe(202);
    const control = await customer();
    await signIn({ account: t.account.publicApiKey, email: control.email });
    await newestSignInLink(control.id);
    expect(await signInMails(draft)).toEqual([]);
  });
});
