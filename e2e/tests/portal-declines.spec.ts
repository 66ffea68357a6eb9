import { portalText } from '../../capture-service/src/portal/browser/portal-text.js';
import { expect, portalProduct as p, test } from './fixtures.js';

/**
 * A declined card in the customer portal is told in the customer's language by the gateway's decline
 * code (issue 38), never in the server's English words: the card form and the pay view, in French at 320 px.
 * The portal product's test clock is left alone (portal.spec.ts drives it).
 */

const fr = portalText('fr');

test('a French customer’s declined cards in the portal are told in French: the card form (security code), the pay view (insufficient funds)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 320, height: 720 });
  const customer = await p.call<{ id: number }>('POST', '/v1/customers', {
    firstName: 'Amélie',
    lastName: 'Refus',
    primaryEmail: `portal.declines.${Date.now()}@example.com`,
    currency: 'USD',
    language: 'fr',
  });
  await p.call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: 11 });
  const flags = { activateAllSubscriptions: true, activateAllDraftPurchases: false, temporarilyDisableAutoPost: false };
  await p.call('POST', '/v1/customeractivation', { customerId: customer.id, ...flags });
  const session = await p.call<{ url: string }>('POST', '/v1/portalSessions', { customerId: customer.id, locale: 'fr' });
  await page.goto(session.url);
  // A browser that did not ask for the link confirms whose portal it opens (login forgery).
  await page.locator('#confirm button').click();
  const portal = page.locator('renew-portal');
  await expect(portal.getByRole('navigation')).toBeVisible();
  const frame = portal.locator('renew-hosted-card-frame iframe').contentFrame();
  const typeCard = async (number: string) => {
    await expect(portal.locator('renew-hosted-card-frame[ready]')).toBeAttached();
    await frame.getByLabel('Numéro de carte').fill(number);
    await frame.getByLabel("Date d'expiration (MM / AA)").fill('12 / 30');
    await frame.getByLabel('Cryptogramme (CVV)').fill('123');
  };

  // The card form: the sandbox's card whose security code the bank refuses when it is saved.
  await page.evaluate(() => (location.hash = 'card'));
  await expect(portal.getByRole('heading', { name: fr.cardTitle })).toBeVisible();
  await typeCard('4000000000000127');
  await portal.getByRole('button', { name: fr.saveCard }).click();
  await expect(portal.getByRole('alert')).toHaveText(fr.declineIncorrectCvc);

  // The pay view with a new card: saved, then its payment refused for insufficient funds.
  await page.evaluate(() => (location.hash = 'pay'));
  await expect(portal.getByRole('heading', { name: fr.payTitle })).toBeVisible();
  await typeCard('4000000000009995');
  await portal.getByRole('button', { name: /^Payer / }).click();
  // After the first decline, card attempts need the CAPTCHA (card testing): asked for in French, then solved.
  await expect(portal.getByRole('alert')).toHaveText(fr.captchaNeeded);
  await portal.getByLabel(fr.captchaDevLabel).check();
  await portal.getByRole('button', { name: /^Payer / }).click();
  await expect(portal.getByRole('alert')).toHaveText(fr.declineInsufficientFunds);
  await expect(portal).not.toContainText(/declined|insufficient|payment failed|validation error|Something went wrong/i);
});
