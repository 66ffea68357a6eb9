import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Account, NO_REQUEST } from './account.js';
import type { World } from './context.js';
import { formatAmount } from './currency.js';
import { parseFormBody } from './form-body.js';
import { returnUrlOf } from './next-action.js';
import type { PaymentIntentObject, SetupIntentObject } from './objects.js';
import { completePaymentChallenge } from './payment-flow.js';
import { completeSetupChallenge } from './setup-flow.js';

export type ChallengeOutcome = 'succeed' | 'fail';

type Pending = { account: Account; payment: PaymentIntentObject } | { account: Account; setup: SetupIntentObject };

/**
 * The issuer's 3-D Secure page that `next_action.redirect_to_url.url` points at. Completing or failing it settles the
 * intent and, as Stripe does, sends the browser to the return_url with `payment_intent` (or `setup_intent`), its
 * client secret and `redirect_status` added to the query.
 */
export function completeChallenge(world: World, intentId: string, outcome: ChallengeOutcome): string | null {
  const pending = findIntent(world, intentId);
  if (!pending) throw new Error(`No PaymentIntent or SetupIntent ${intentId} in this stand-in`);
  const intent = 'payment' in pending ? pending.payment : pending.setup;
  if (intent.status !== 'requires_action') throw new Error(`${intentId} is ${intent.status}, not waiting for a challenge`);
  const returnUrl = returnUrlOf(intent.next_action);
  const flow = { world, account: pending.account, origin: NO_REQUEST };
  if ('payment' in pending) completePaymentChallenge(flow, pending.payment, outcome);
  else completeSetupChallenge(flow, pending.setup, outcome);
  if (!returnUrl) return null;
  const back = new URL(returnUrl);
  const kind = 'payment' in pending ? 'payment_intent' : 'setup_intent';
  back.searchParams.set(kind, intent.id);
  back.searchParams.set(`${kind}_client_secret`, intent.client_secret ?? '');
  back.searchParams.set('redirect_status', intent.status === 'succeeded' ? 'succeeded' : 'failed');
  return back.toString();
}

/** GET and POST /challenge/:intentId (no API key: the cardholder's browser opens it). */
export async function serveChallenge(world: World, request: IncomingMessage, response: ServerResponse, intentId: string): Promise<void> {
  const pending = findIntent(world, intentId);
  const intent = pending && ('payment' in pending ? pending.payment : pending.setup);
  if (intent?.status !== 'requires_action') {
    page(response, 404, '<h1>No authentication is waiting</h1><p>This payment is not waiting for 3-D Secure.</p>');
    return;
  }
  if (request.method === 'POST') {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const outcome = parseFormBody(Buffer.concat(chunks).toString('utf8')).outcome === 'succeed' ? 'succeed' : 'fail';
    const back = completeChallenge(world, intentId, outcome);
    if (back) {
      response.writeHead(303, { Location: back }).end();
      return;
    }
    page(response, 200, `<h1>Authentication ${outcome === 'succeed' ? 'complete' : 'failed'}</h1><p>You can close this window.</p>`);
    return;
  }
  const what = 'amount' in intent ? `Pay ${escapeHtml(formatAmount(intent.amount, intent.currency))}` : 'Save your card for later payments';
  page(
    response,
    200,
    `<h1>3-D Secure test page</h1><p>${what}. This stand-in for the card issuer asks you to confirm.</p>
<form method="post"><input type="hidden" name="outcome" value="succeed"><button type="submit">Complete</button></form>
<form method="post"><input type="hidden" name="outcome" value="fail"><button type="submit">Fail</button></form>`,
  );
}

function findIntent(world: World, id: string): Pending | undefined {
  for (const account of world.accounts.values()) {
    const payment = account.paymentIntents.get(id);
    if (payment) return { account, payment };
    const setup = account.setupIntents.get(id);
    if (setup) return { account, setup };
  }
  return undefined;
}

function page(response: ServerResponse, status: number, body: string): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>3-D Secure test page</title></head><body><main>${body}</main></body></html>`;
  response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
