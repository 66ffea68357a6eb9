import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The demo store's own sign-in and its "Account" page. Inkwell has no passwords: a shopper is signed in
 * to the store once their checkout completes (the checkout proxy checked its session for that customer),
 * by a signed cookie naming their Renew customer. "Account" is what a merchant adds to their own site:
 * its server asks Renew for a portal session for the signed-in customer and redirects to it.
 */
const COOKIE = 'inkwell_account';
const ACTIVATION = /^\/checkout\/customers\/(\d+)\/activation(?:\?|$)/;

export interface DemoAccountOptions {
  billingApiUrl: string;
  apiKey: string;
  /** The card-capture host, whose /portal/sign-in a signed-out shopper is offered, for the account of `publicApiKey`. */
  captureUrl: string;
  publicApiKey: string;
  /** Signs the store's cookie; random per process when unset (the demo's sign-in then lasts as long as the process). */
  secret?: string;
}

/** The store's sign-in cookie for a customer (exported for tests). */
export function demoAccountCookie(secret: string, customerId: number): string {
  return `${COOKIE}=${signer(Buffer.from(secret)).issue(customerId)}`;
}

function signer(secret: Buffer) {
  const sign = (value: string) => createHmac('sha256', secret).update(`inkwell-account:${value}`).digest('base64url');
  return {
    issue: (customerId: number) => `${customerId}.${sign(String(customerId))}`,
    read(token: string | undefined): number | undefined {
      const [id, signature, extra] = (token ?? '').split('.');
      if (!id || !signature || extra !== undefined || !/^\d{1,10}$/.test(id)) return undefined;
      const expected = Buffer.from(sign(id));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected) ? Number(id) : undefined;
    },
  };
}

function cookieOf(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Your account — Inkwell</title><link rel="stylesheet" href="/store.css"></head><body><header><strong class="logo">Inkwell</strong><nav><a href="/">Store</a></nav></header><main><h1>Your account</h1>${body}</main></body></html>`;

export function registerDemoAccount(app: FastifyInstance, options: DemoAccountOptions): void {
  const cookies = signer(options.secret ? Buffer.from(options.secret) : randomBytes(32));

  // Signed in once the checkout's activation succeeds: the proxy accepted the checkout session of that very customer.
  app.addHook('onSend', async (request, reply: FastifyReply, payload) => {
    const match = request.method === 'POST' ? ACTIVATION.exec(request.url) : null;
    if (match && reply.statusCode === 200) {
      reply.header('set-cookie', `${COOKIE}=${cookies.issue(Number(match[1]))}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${30 * 24 * 3600}`);
    }
    return payload;
  });

  app.get('/account', async (request, reply) => {
    const customerId = cookies.read(cookieOf(request));
    if (customerId === undefined) {
      // A customer signed out of the store (another browser, the cookie gone): the portal's sign-in by e-mail link.
      const signIn = new URL('/portal/sign-in', options.captureUrl);
      signIn.searchParams.set('account', options.publicApiKey);
      return reply
        .type('text/html; charset=utf-8')
        .send(
          page(
            `<p>Already a customer? <a href="${escapeAttribute(signIn.toString())}">Sign in with your e-mail address</a>: we send you a link.</p><p>New here? Subscribe first: your account opens here once your checkout is complete.</p><p><a href="/#pricing">See the plans</a></p>`,
          ),
        );
    }
    // What a merchant adds: a portal session for the signed-in customer, then a redirect to it.
    const origin = `${request.protocol}://${request.host}`;
    const response = await fetch(new URL('/v1/portalSessions', options.billingApiUrl), {
      method: 'POST',
      headers: { authorization: `Basic ${options.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId, returnUrl: `${origin}/` }),
    });
    if (!response.ok) {
      request.log.warn({ status: response.status }, 'portal session refused');
      return reply
        .code(502)
        .type('text/html; charset=utf-8')
        .send(page('<p>Your account cannot be opened right now. Please try again in a moment.</p>'));
    }
    const { url } = (await response.json()) as { url: string };
    return reply.header('cache-control', 'no-store').redirect(url, 303);
  });
}
