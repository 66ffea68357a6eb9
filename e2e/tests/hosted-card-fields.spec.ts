import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import { cardFrame, customerByEmail, expect, fillCard, newShopper, product, reachPayment, test } from './fixtures.js';

/**
 * The hosted card fields: the number, expiry and CVV live in a document of the
 * capture host's origin, framed by the shop's page, out of reach of its scripts.
 */

/**
 * What a hostile script on the merchant's page can do: listen to key and input
 * events on the document, read every message the page receives and every body
 * it fetches, and walk the document, every shadow root and every frame it can
 * reach, collecting values, attributes and text.
 */
function installSpy() {
  const spy = { events: [] as string[], messages: [] as string[], bodies: [] as string[], unreachableFrames: 0 };
  for (const type of ['keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'paste', 'change']) {
    document.addEventListener(
      type,
      (event) => {
        const e = event as KeyboardEvent & InputEvent;
        const target = event.composedPath()[0] as HTMLInputElement | undefined;
        spy.events.push(`${type}:${e.key ?? e.data ?? ''}:${target?.value ?? ''}`);
      },
      true,
    );
  }
  window.addEventListener('message', (event) => spy.messages.push(JSON.stringify(event.data)), true);
  const realFetch = window.fetch.bind(window);
  window.fetch = (input, init) => {
    spy.bodies.push(String(init?.body ?? ''));
    return realFetch(input, init);
  };
  const walk = () => {
    const found: string[] = [];
    spy.unreachableFrames = 0;
    const visit = (root: Document | ShadowRoot) => {
      found.push(root instanceof Document ? (root.documentElement?.textContent ?? '') : (root.textContent ?? ''));
      for (const element of Array.from(root.querySelectorAll('*'))) {
        if ('value' in element && typeof (element as HTMLInputElement).value === 'string') found.push((element as HTMLInputElement).value);
        for (const attribute of Array.from(element.attributes)) found.push(attribute.value);
        if (element.shadowRoot) visit(element.shadowRoot);
        if (element instanceof HTMLIFrameElement) {
          try {
            const inner = element.contentDocument;
            if (inner) visit(inner);
            else spy.unreachableFrames += 1;
          } catch {
            spy.unreachableFrames += 1;
          }
        }
      }
    };
    visit(document);
    for (let i = 0; i < window.frames.length; i++) {
      try {
        visit(window.frames[i]!.document);
      } catch {
        // a frame of another origin: its document cannot be read
      }
    }
    return found;
  };
  (window as unknown as { __spy: unknown }).__spy = { spy, walk };
}

type SpyReport = { events: string[]; messages: string[]; bodies: string[]; unreachableFrames: number; found: string[] };
async function spyReport(page: import('@playwright/test').Page): Promise<SpyReport> {
  return page.evaluate(() => {
    const { spy, walk } = (window as unknown as { __spy: { spy: Omit<SpyReport, 'found'>; walk(): string[] } }).__spy;
    const found = walk();
    return { ...spy, found };
  });
}

test('the proof: a script on the merchant page finds neither the card number nor the CVV, before or after paying', async ({
  page,
  checkout,
}) => {
  const shopper = newShopper();
  await reachPayment(checkout, shopper);
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  // The store's own hint names the test card: out of the page, so that only what the shopper types could be found.
  await page.locator('.hint').evaluate((hint) => hint.remove());
  // Injected into the merchant's page only (a page's script cannot run in another origin's frame).
  await page.evaluate(installSpy);

  // The spy is not blind: what the shopper types in the widget itself, it sees.
  await checkout.getByLabel('First name on card').fill('');
  await checkout.getByLabel('First name on card').pressSequentially('Augusta');
  const before = await spyReport(page);
  expect(before.events.some((e) => e.startsWith('keydown:A'))).toBe(true);
  expect(before.found).toContain('Augusta');

  await page.evaluate(() => ((window as unknown as { __spy: { spy: { events: string[] } } }).__spy.spy.events.length = 0));
  await expect(checkout.locator('renew-hosted-card-frame[ready]')).toBeAttached();
  const frame = cardFrame(checkout);
  await frame.getByLabel('Card number').pressSequentially('4242 4242 4242 4242');
  await frame.getByLabel('Expiry date (MM / YY)').pressSequentially('1230');
  await frame.getByLabel('Security code (CVV)').pressSequentially('864');
  await expect(frame.getByLabel('Card number')).toHaveValue('4242 4242 4242 4242');

  const typed = await spyReport(page);
  expect(typed.events).toEqual([]);
  expect(typed.unreachableFrames).toBeGreaterThan(0);
  const haystack = [...typed.found, ...typed.messages, ...typed.bodies].join('\n');
  expect(haystack).not.toMatch(/4242\D?4242\D?4242\D?4242/);
  expect(haystack).not.toMatch(/(?<![0-9])864(?![0-9])/);

  await checkout.getByLabel("I'm not a robot").check();
  await checkout.getByRole('button', { name: /^Pay / }).click();
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  const paid = await spyReport(page);
  const after = [...paid.found, ...paid.messages, ...paid.bodies].join('\n');
  expect(after).not.toMatch(/4242\D?4242\D?4242\D?4242/);
  expect(after).not.toMatch(/(?<![0-9])864(?![0-9])/);
  // The page heard the outcome: the masked number, from the frame.
  expect(paid.messages.some((m) => m.includes('"type":"captured"') && m.includes('************4242'))).toBe(true);
  expect((await customerByEmail(shopper.email))?.status).toBe('Active');
});

test('a page on a site that is not one of the shop domains cannot frame the card fields: the browser refuses', async ({ page }) => {
  const framed = `${product.captureUrl}/hosted/card-fields?origin=${encodeURIComponent(product.demoUrl)}#channel=0123456789abcdef0123`;
  // The capture host serves the page (the origin named is a shop domain); only frame-ancestors stands in the way.
  const direct = await fetch(framed);
  expect(direct.status).toBe(200);
  expect(direct.headers.get('content-security-policy')).toContain(`frame-ancestors 'self' ${product.demoUrl}`);

  const elsewhere = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><html lang="en"><title>Not a shop</title><iframe title="Card details" src="${framed}"></iframe></html>`);
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  try {
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors/.test(message.text())) refusals.push(message.text());
    });
    await page.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);
    await expect.poll(() => refusals).toEqual([expect.stringContaining(`frame-ancestors 'self' ${product.demoUrl}`)]);
    await expect(page.frameLocator('iframe').getByLabel('Card number')).toHaveCount(0);
    // The frame's script never ran there: it fetched nothing.
    expect(page.frames().some((f) => f.url().startsWith(`${product.captureUrl}/hosted/card-fields`) && f.url() !== 'about:blank')).toBe(
      false,
    );
  } finally {
    await new Promise((resolve) => elsewhere.close(resolve));
  }
});

test('accessible across the frame: labels, focus order from the name into the card fields and out, announced errors, axe inside the frame', async ({
  page,
  checkout,
}) => {
  await reachPayment(checkout, newShopper());
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(checkout.locator('renew-hosted-card-frame[ready]')).toBeAttached();
  const frame = cardFrame(checkout);

  await checkout.getByLabel('Last name on card').focus();
  await page.keyboard.press('Tab');
  await expect(frame.getByLabel('Card number')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(frame.getByLabel('Expiry date (MM / YY)')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(frame.getByLabel('Security code (CVV)')).toBeFocused();
  // Out of the frame to the checkout's next control (the CAPTCHA), then Back and Pay.
  await page.keyboard.press('Tab');
  await expect(checkout.getByLabel("I'm not a robot")).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(checkout.getByRole('button', { name: /^Pay / })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  await expect(frame.getByLabel('Security code (CVV)')).toBeFocused();

  // Errors are linked to their field and in a live region.
  await checkout.getByLabel("I'm not a robot").check();
  await checkout.getByRole('button', { name: /^Pay / }).click();
  const numberError = frame.locator('#cardNumber-error');
  await expect(numberError).toHaveText('Enter a valid card number.');
  await expect(numberError).toHaveAttribute('aria-live', 'polite');
  await expect(frame.getByLabel('Card number')).toHaveAccessibleDescription('Enter a valid card number.');

  // The WCAG 2.1 A and AA rules (the frame is a part of a page: best practices for whole pages, such as an h1, do not apply to it).
  const results = await new AxeBuilder({ page }).include('renew-checkout').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`)).toEqual([]);
  // axe reached into the frame (its document was analysed, not skipped).
  expect(JSON.stringify(results.passes)).toContain('cardNumber');
});

test("at 320 px the fields fit, and the frame's height follows its content as errors come and go", async ({ page, checkout }) => {
  await page.setViewportSize({ width: 320, height: 800 });
  await reachPayment(checkout, newShopper());
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(checkout.locator('renew-hosted-card-frame[ready]')).toBeAttached();
  const frame = cardFrame(checkout);
  const iframe = checkout.locator('renew-hosted-card-frame iframe');
  const measure = async () => ({
    frameHeight: Math.round((await iframe.boundingBox())!.height),
    frameWidth: Math.round((await iframe.boundingBox())!.width),
    content: await frame.locator('html').evaluate((html) => ({
      height: Math.ceil(html.getBoundingClientRect().height),
      scrollWidth: html.scrollWidth,
      clientWidth: html.clientWidth,
    })),
  });
  await expect
    .poll(async () => {
      const m = await measure();
      return m.frameHeight - m.content.height;
    })
    .toBe(0);
  const calm = await measure();
  // The frame takes the width the checkout gives it (at 320 px, the checkout's own layout decides that) and nothing inside overflows it.
  const stepWidth = Math.round((await checkout.locator('renew-card-step form').boundingBox())!.width);
  expect(calm.frameWidth).toBe(stepWidth);
  expect(calm.content.scrollWidth).toBeLessThanOrEqual(calm.content.clientWidth);
  // Expiry and CVV share a row when they fit, else stack: either way each field is fully inside the frame.
  for (const label of ['Card number', 'Expiry date (MM / YY)', 'Security code (CVV)']) {
    const box = await frame.getByLabel(label).evaluate((input) => input.getBoundingClientRect().toJSON() as DOMRect);
    expect(box.right).toBeLessThanOrEqual(calm.content.clientWidth);
    expect(box.height, `${label}: a 44 px touch target`).toBeGreaterThanOrEqual(44);
  }
  // And the shop's page does not scroll sideways.
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= document.scrollingElement!.clientWidth)).toBe(true);

  await fillCard(checkout, '4242 4242 4242 4241', '1');
  // Leaving the card fields shows their errors, so the frame grows and the checkbox below it moves while a click is
  // aimed at it (on a slow machine the click lands where it was): aim again until it is checked.
  const robot = checkout.getByLabel("I'm not a robot");
  await expect(async () => {
    await robot.check({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await checkout.getByRole('button', { name: /^Pay / }).click();
  await expect(frame.getByText('Enter a valid card number.')).toBeVisible();
  await expect.poll(async () => (await measure()).frameHeight).toBeGreaterThan(calm.frameHeight);
  await expect
    .poll(async () => {
      const m = await measure();
      return m.frameHeight - m.content.height;
    })
    .toBe(0);
});

test("the fields speak the page's language", async ({ checkout }) => {
  await reachPayment(checkout, newShopper());
  await checkout.evaluate((element) => element.setAttribute('lang', 'fr'));
  await checkout.getByRole('button', { name: 'Passer au paiement' }).click();
  const frame = cardFrame(checkout);
  await expect(frame.getByLabel('Numéro de carte')).toBeVisible();
  await expect(frame.getByLabel("Date d'expiration (MM / AA)")).toBeVisible();
  await expect(frame.locator('html')).toHaveAttribute('lang', 'fr');
});
