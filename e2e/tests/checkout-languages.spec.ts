import type { Locator, Page } from '@playwright/test';
import { expect, newShopper, payInFrench, product, reachFrenchPayment, test, useDirectCardFields } from './fixtures.js';

/**
 * The checkout's own words where the browser or the server would speak English (issue 38): its forms are
 * `novalidate` and show their own messages in the shopper's language, tied to the field (aria-invalid,
 * aria-describedby) with the focus on the first field to fix; a declined card is told in that language,
 * by the gateway's decline code. A French shopper at 320 px.
 */

const REQUIRED = 'Ce champ est obligatoire.';

async function frenchCheckout(page: Page): Promise<Locator> {
  await page.setViewportSize({ width: 320, height: 640 });
  await page.goto(`${product.demoUrl}/?lang=fr`);
  const checkout = page.locator('renew-checkout');
  await expect(checkout.getByRole('heading', { name: 'Choisissez votre offre' })).toBeVisible();
  return checkout;
}

/** The step's form leaves validation to the checkout: the browser shows no bubble of its own. */
async function expectOwnValidation(step: Locator) {
  expect(await step.locator('form').evaluate((form: HTMLFormElement) => form.noValidate)).toBe(true);
}

/** The field is marked invalid, described by `message` (its error line), and has the focus. */
async function expectFieldError(field: Locator, message: string) {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(message);
  await expect(field).toBeFocused();
}

/** The card typed into the widget's own inputs (direct mode), the CAPTCHA ticked, Pay pressed. */
async function payInFrenchDirect(checkout: Locator, card: string) {
  await checkout.getByLabel('Numéro de carte').fill(card);
  await checkout.getByLabel('Date d’expiration (MM / AA)').fill('12 / 30');
  await checkout.getByLabel('Cryptogramme (CVV)').fill('123');
  await checkout.getByLabel('Je ne suis pas un robot').check();
  await checkout.getByRole('button', { name: /^Payer / }).click();
}

test('a French shopper at 320 px sees the checkout’s own French messages on every step with inputs, then a declined card told in French', async ({
  page,
}) => {
  const checkout = await frenchCheckout(page);
  await useDirectCardFields(checkout);
  const shopper = newShopper();

  // Plan: sent with no plan chosen.
  const plan = checkout.locator('renew-plan-step');
  await expectOwnValidation(plan);
  await checkout.getByRole('button', { name: 'Continuer' }).click();
  await expect(plan.getByRole('alert')).toHaveText('Choisissez une offre.');
  await expect(plan.getByRole('radiogroup')).toHaveAttribute('aria-invalid', 'true');
  await expect(plan.getByRole('radio').first()).toBeFocused();
  await checkout.getByRole('radio', { name: /Basic.*par mois/ }).check();
  await checkout.getByRole('button', { name: 'Continuer' }).click();

  // Details: empty, then an e-mail address without its domain.
  const details = checkout.locator('renew-customer-step');
  await expect(details.getByLabel('Prénom')).toBeVisible();
  await expectOwnValidation(details);
  await checkout.getByRole('button', { name: 'Continuer' }).click();
  await expectFieldError(details.getByLabel('Prénom'), REQUIRED);
  await expect(details.getByLabel('Adresse e-mail')).toHaveAccessibleDescription(REQUIRED);
  await details.getByLabel('Prénom').fill(shopper.firstName);
  await details.getByLabel('Nom', { exact: true }).fill(shopper.lastName);
  await details.getByLabel('Adresse e-mail').fill('amelie@');
  await checkout.getByRole('button', { name: 'Continuer' }).click();
  await expectFieldError(details.getByLabel('Adresse e-mail'), 'Saisissez une adresse e-mail, par exemple nom@exemple.fr.');
  await expect(details.getByLabel('Prénom')).toHaveAttribute('aria-invalid', 'false');
  await details.getByLabel('Adresse e-mail').fill(shopper.email);
  await checkout.getByRole('button', { name: 'Continuer' }).click();

  // Address: empty.
  const address = checkout.locator('renew-address-step');
  await expect(address.getByLabel('Ville')).toBeVisible();
  await expectOwnValidation(address);
  await checkout.getByRole('button', { name: 'Vérifier la commande' }).click();
  await expectFieldError(address.getByLabel('Adresse', { exact: true }), REQUIRED);
  await expect(address.getByLabel('Code postal')).toHaveAttribute('aria-invalid', 'true');
  await address.getByLabel('Adresse', { exact: true }).fill('1 Main Street');
  await address.getByLabel('Ville').fill('New York');
  await address.getByLabel('Code postal').fill('10001');
  await address.getByLabel('Pays').selectOption('US');
  await address.getByLabel('État / région').selectOption('US-NY');
  await checkout.getByRole('button', { name: 'Vérifier la commande' }).click();
  await checkout.getByRole('button', { name: 'Passer au paiement' }).click();

  // Payment (the widget's own card inputs): the cardholder's name emptied.
  const card = checkout.locator('renew-card-step');
  await expect(card.getByLabel('Prénom du titulaire')).toHaveValue(shopper.firstName);
  await expectOwnValidation(card);
  await card.getByLabel('Prénom du titulaire').fill('');
  await payInFrenchDirect(checkout, '4242 4242 4242 4242');
  await expectFieldError(card.getByLabel('Prénom du titulaire'), REQUIRED);
  await card.getByLabel('Prénom du titulaire').fill(shopper.firstName);

  // A card refused for insufficient funds: its reason, in French, never the server's English.
  await payInFrenchDirect(checkout, '4000 0000 0000 9995');
  await expect(card.getByRole('alert')).toHaveText('Provision insuffisante sur cette carte. Utilisez une autre carte.');
  await expect(card).not.toContainText(/declined|insufficient|payment failed/i);
});

test('a French shopper’s card declined in the hosted card fields is told in French: the generic decline, then the security code', async ({
  page,
}) => {
  const checkout = await reachFrenchPayment(page, newShopper());
  const card = checkout.locator('renew-card-step');
  await payInFrench(checkout, '4000 0000 0000 0002');
  await expect(card.getByRole('alert')).toHaveText(
    'Cette carte n’a pas pu être utilisée. Vérifiez les informations ou utilisez une autre carte.',
  );
  await payInFrench(checkout, '4000 0000 0000 0127');
  await expect(card.getByRole('alert')).toHaveText('Le cryptogramme est incorrect. Vérifiez-le et réessayez.');
  await expect(card).not.toContainText(/declined|incorrect_cvc|validation error/i);
});
