import { availableParallelism } from 'node:os';
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './support/chromium-executable.js';

/**
 * Playwright cannot download browsers here: the tests launch RENEW_CHROMIUM, or
 * the system's Chromium (Debian's `chromium` package), or else the one shipped in
 * the npm package @sparticuz/chromium (see support/chromium-executable.ts).
 */
const launchOptions = await chromiumLaunchOptions();

export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  // The files share no state a test reads: each product's customers are unique per test, the portal's test clock
  // and the reCAPTCHA stand-in have one file each, the console its own product (support/serve-product.ts).
  // Tests within a file still run in order. RENEW_E2E_WORKERS=1 runs one at a time.
  workers: Number(process.env.RENEW_E2E_WORKERS) || availableParallelism(),
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions,
    trace: 'retain-on-failure',
  },
  outputDir: './test-results',
});
