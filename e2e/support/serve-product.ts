import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startProduct } from '../../scripts/start-product.js';

/** Marks the line with the addresses among the product's own log lines. */
export const PRODUCT_LINE_PREFIX = 'renew-e2e-product ';

/**
 * The whole product as `npm start` runs it (same launcher), on free ports and a
 * fresh embedded database, for the browser tests. Prints one line with the
 * addresses and keys (JSON after PRODUCT_LINE_PREFIX), then runs until SIGTERM.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-e2e-'));
const apiKey = `sk_e2e_${randomBytes(16).toString('hex')}`;
const product = await startProduct({
  ...process.env,
  RENEW_DATA_DIR: dataDir,
  RENEW_API_PORT: '0',
  RENEW_CAPTURE_PORT: '0',
  RENEW_DEMO_PORT: '0',
  RENEW_CAPTCHA: 'dev',
  RENEW_LOG_LEVEL: process.env.RENEW_LOG_LEVEL ?? 'warn',
  RENEW_API_KEY: apiKey,
  RENEW_PUBLIC_API_KEY: `pk_e2e_${randomBytes(16).toString('hex')}`,
  DATABASE_URL: '',
});
if (!product.demo) throw new Error('the demo store did not start');
console.log(PRODUCT_LINE_PREFIX + JSON.stringify({ demoUrl: product.demo.url, billingUrl: product.billing.url, captureUrl: product.captureUrl, apiKey }));

const stop = async () => {
  await product.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
