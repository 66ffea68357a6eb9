import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'vite';
import { expect, product, test } from './fixtures.js';

/** The React page (react-page/main.ts) bundled as a merchant's bundler would (languages as chunks of their own), served on the demo store's origin (the proxy is at /checkout). */
let outDir = '';
test.beforeAll(async () => {
  outDir = mkdtempSync(path.join(tmpdir(), 'renew-react-'));
  await build({
    configFile: false,
    logLevel: 'error',
    root: path.join(import.meta.dirname, '..', 'react-page'),
    build: { outDir, lib: { entry: 'main.ts', formats: ['es'], fileName: () => 'main.js' }, minify: false },
    define: { 'process.env.NODE_ENV': '"production"' },
  });
});

test('the React wrapper renders <renew-checkout> with its props, and its events reach the React callbacks', async ({ page }) => {
  await page.route(`${product.demoUrl}/react-shop`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><title>React shop</title><div id="root"></div><script type="module" src="/react-shop/main.js"></script>',
    }),
  );
  await page.route(`${product.demoUrl}/react-shop/*.js`, (route) =>
    route.fulfill({
      contentType: 'text/javascript',
      body: readFileSync(path.join(outDir, path.basename(new URL(route.request().url()).pathname)), 'utf8'),
    }),
  );
  await page.goto(`${product.demoUrl}/react-shop`);
  const checkout = page.locator('renew-checkout');
  // lang="de" from the React prop.
  await expect(checkout.getByRole('heading', { name: 'Wählen Sie Ihren Tarif' })).toBeVisible();
  // onStep: the element's renew-checkout-step event, through React.
  await expect(page.locator('#steps')).toHaveText('plan');
  await checkout.getByRole('radio', { name: /Basic.*pro Monat/ }).check();
  await checkout.getByRole('button', { name: 'Weiter' }).click();
  await expect(page.locator('#steps')).toHaveText('plan,customer');
});
