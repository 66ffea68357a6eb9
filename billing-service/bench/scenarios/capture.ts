/**
 * Figures 7a/7b: card capture with a 10.00 collection, `POST /api/paymentsv2`
 * on the card-capture host of the server process, every request with a fresh
 * reCAPTCHA token checked against the siteverify stand-in.
 */
import { CAPTURE_COLLECTION_AMOUNT, captureBody } from '../fixtures.js';
import { expectOk, rotation, throughput } from '../harness.js';
import type { ThroughputResult } from '../load.js';
import type { CaptureSpec, RunningServer } from '../server-process.js';
import type { SiteverifyStandIn } from '../siteverify.js';

export interface CaptureFigures {
  capture: ThroughputResult;
  /** siteverify calls answered during the capture run (warm-up and check included) and capture requests sent. */
  captcha: { verified: number; refused: number; sent: number };
}

/** How the server process starts its capture host: the real SiteverifyCaptcha against the stand-in. */
export const captureSpec = (siteverify: SiteverifyStandIn): CaptureSpec => ({
  captcha: 'siteverify' as const,
  verifyUrl: siteverify.url,
  secret: siteverify.secret,
});

const RUN_ID = Math.random().toString(36).slice(2, 10);
let captureTokens = 0;
/** A reCAPTCHA response token never used before in this run (nor, with the random part, in any other). */
function freshToken(): string {
  captureTokens += 1;
  return `bench-${RUN_ID}-${captureTokens}`;
}

export async function benchCapture(
  db: string,
  app: RunningServer,
  publicKey: string,
  customers: number[],
  siteverify: SiteverifyStandIn,
  postgresDatabase?: string,
): Promise<CaptureFigures> {
  if (!app.captureUrl) throw new Error('the server process did not start the card-capture host');
  const captureHost: RunningServer = { ...app, url: app.captureUrl };
  const captureHeaders = { 'content-type': 'application/json' };
  const verifiedBefore = siteverify.verified;
  const refusedBefore = siteverify.refused;
  const first = customers[0];
  if (first === undefined) throw new Error('no customer to capture a card for');
  let sent = 1;
  await expectOk(captureHost, 'POST', '/api/paymentsv2', captureHeaders, captureBody(publicKey, first, freshToken()));
  const nextCaptureCustomer = rotation(customers);
  const capture = await throughput(`${db} POST /api/paymentsv2 (card + ${CAPTURE_COLLECTION_AMOUNT} collection)`, app, {
    baseUrl: app.captureUrl,
    method: 'POST',
    path: '/api/paymentsv2',
    headers: captureHeaders,
    body: () => {
      sent += 1;
      return captureBody(publicKey, nextCaptureCustomer(), freshToken());
    },
    postgresDatabase,
  });
  // requests cut off when autocannon stopped are still being handled by the server: let them reach their CAPTCHA check
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { capture, captcha: { verified: siteverify.verified - verifiedBefore, refused: siteverify.refused - refusedBefore, sent } };
}
