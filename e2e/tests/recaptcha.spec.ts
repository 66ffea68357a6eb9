import { customerByEmail, expect, fillCard, googleProduct, newShopper, reachPayment, test } from './fixtures.js';

test('with reCAPTCHA, the widget shows it from the light DOM and the capture host verifies its token with siteverify', async ({
  page,
  problems,
}) => {
  const stats = async () =>
    (await (await fetch(`${googleProduct.recaptchaStandInUrl}/stats`)).json()) as { verified: number; refused: number };
  await page.goto(googleProduct.demoUrl);
  const checkout = page.locator('renew-checkout');
  const shopper = newShopper();
  await reachPayment(checkout, shopper);
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();

  // Google's widget cannot live in a shadow root: it is rendered into a slotted light-DOM child.
  const widget = page.locator('renew-checkout > div[slot="captcha"]');
  await expect(widget.getByLabel("I'm not a robot (reCAPTCHA stand-in)")).toBeVisible();

  // Unsolved: asked for here, nothing sent to the capture host.
  await fillCard(checkout, '4242 4242 4242 4242');
  await checkout.getByRole('button', { name: /^Pay / }).click();
  await expect(checkout.getByRole('alert')).toHaveText('Please confirm you are not a robot, then try again.');
  const before = await stats();

  await widget.getByLabel("I'm not a robot (reCAPTCHA stand-in)").check();
  await checkout.getByRole('button', { name: /^Pay / }).click();
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  expect((await stats()).verified).toBe(before.verified + 1);
  expect((await customerByEmail(shopper.email, googleProduct))?.status).toBe('Active');
  expect(problems).toEqual([]);
});
