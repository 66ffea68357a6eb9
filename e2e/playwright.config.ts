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
  workers: 1,
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
