import { expect } from 'vitest';
import { DAY } from './api-fixtures.js';
import type { TestAccount, TestApp } from './test-app.js';

/** E-mail and webhooks on, so their outboxes are written (nothing sends them without background tasks). */
export const WITH_OUTBOXES = {
  email: { smtpUrl: 'smtp://127.0.0.1:9', from: 'billing@inkwell.test' },
  webhooks: { allowHttp: true, allowPrivate: true },
};

/** Tomorrow 10:00 UTC: where each account's test clock starts (an advance never runs back). */
export const CLOCK_START = new Date(Math.ceil(Date.now() / DAY) * DAY + 10 * 3_600_000);

/** Moves the account's test clock to `to` (the billing clock runs for it). */
export async function advanceClock(t: TestApp, account: TestAccount, to: Date): Promise<void> {
  const res = await t.call('POST', '/v1/testclock/advance', { to: to.toISOString() }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

/** A new account on its test clock at CLOCK_START, with a webhook endpoint for every event (so events are written). */
export async function accountOnClock(t: TestApp): Promise<TestAccount> {
  const account = await t.newAccount();
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] }, { as: account });
  expect(hook.statusCode, hook.body).toBe(200);
  await advanceClock(t, account, CLOCK_START);
  return account;
}
