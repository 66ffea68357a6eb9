import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * Playwright cannot download browsers here: it launches the system's Chromium
 * (Debian's `chromium` package), or the one named by RENEW_CHROMIUM.
 */
const chromium = process.env.RENEW_CHROMIUM ?? ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: chromium ? { executablePath: chromium } : {},
    trace: 'retain-on-failure',
  },
  outputDir: './test-results',
});
