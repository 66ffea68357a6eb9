import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { StripeGateway } from '@renew/billing-service/payments';
import { type StripeStandIn, type StripeStandInOptions, startStripeStandIn } from '../../../billing-service/test/stand-ins/stripe/index.js';
import { freshIp, startCaptureTest, type CaptureTest } from './capture-test.js';

/** Where Stripe sends the shopper back in these tests: the capture host's public origin. */
export const RETURN_ORIGIN = 'http://capture.test';

/** A capture host (and billing API) on the Stripe adapter, against a fresh Stripe stand-in. */
export async function startStripeCaptureTest(
  options: { standIn?: StripeStandInOptions; testClocks?: boolean } = {},
): Promise<{ standIn: StripeStandIn; t: CaptureTest; app: FastifyInstance; close(): Promise<void> }> {
  const standIn = await startStripeStandIn(options.standIn);
  const gateway = new StripeGateway({
    secretKey: standIn.secretKey,
    webhookSecret: standIn.webhookSecret,
    apiBase: standIn.url,
    returnUrl: `${RETURN_ORIGIN}/api/gateway/stripe/return`,
  });
  const testClocks = options.testClocks === true;
  const t = await startCaptureTest({ billing: { gateway, webhookWorker: false, ...(testClocks ? { testClocks } : {}) } });
  const app = await t.build({ gateway, ...(testClocks ? { testClocks } : {}) });
  return {
    standIn,
    t,
    app,
    close: async () => {
      await t.close();
      await standIn.close();
    },
  };
}

/** The shopper on Stripe's challenge page (the stand-in's), answering; then the browser follows the redirect to the capture host's return page. */
export async function answerAtStripe(app: FastifyInstance, challengeUrl: string, outcome: 'succeed' | 'fail') {
  expect((await fetch(challengeUrl)).status).toBe(200);
  const answered = await fetch(challengeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
    redirect: 'manual',
  });
  expect(answered.status).toBe(303);
  const back = new URL(answered.headers.get('location') ?? '');
  expect(back.origin).toBe(RETURN_ORIGIN);
  return app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, remoteAddress: freshIp() });
}
