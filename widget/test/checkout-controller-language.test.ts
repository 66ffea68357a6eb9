import type { ReactiveControllerHost } from 'lit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CheckoutController } from '../src/checkout/checkout-controller.js';
import { currentLocale, useLocale } from '../src/checkout/i18n/localization.js';
import { SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => h?.close());

it('creates the customer in the language the shopper uses the checkout in', async () => {
  // @lit/localize tells the page of a language change through `window`: one for that moment only
  // (the embedded database takes a global `window` for a browser's).
  const global = globalThis as { window?: EventTarget };
  global.window = new EventTarget();
  try {
    await useLocale({ locale: 'fr', tag: 'fr-CA' }, undefined);
  } finally {
    delete global.window;
  }
  expect(currentLocale()).toBe('fr');
  const host = { addController() {}, removeController() {}, requestUpdate() {}, updateComplete: Promise.resolve(true) };
  const controller = new CheckoutController(host as unknown as ReactiveControllerHost, h.proxyUrl, {
    onStep: () => {},
    onComplete: () => {},
  });
  await controller.load();
  controller.choosePlan(11);
  const { address, ...person } = SHOPPER;
  controller.submitCustomer({ ...person, email: 'amelie@example.com' });
  await controller.submitAddress(address);
  const customerId = controller.state.started?.customerId;
  expect(customerId, JSON.stringify(controller.state.fieldErrors)).toBeDefined();
  expect((await h.billing.call('GET', `/v1/customers/${customerId}`)).json().language).toBe('fr');
});
