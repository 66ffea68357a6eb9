import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const PRODUCT_LINE_PREFIX = 'renew-e2e-product ';

/** Where the running product's addresses and key are handed to the test workers. */
export const PRODUCT_FILE = fileURLToPath(new URL('../test-results/product.json', import.meta.url));

/** Starts the product in a child process (see serve-product.ts) and hands its addresses to the tests through PRODUCT_FILE. */
export default async function globalSetup() {
  const script = fileURLToPath(new URL('./serve-product.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (text) => {
      if (text.startsWith(PRODUCT_LINE_PREFIX)) resolve(text.slice(PRODUCT_LINE_PREFIX.length));
      else console.log(text); // the product's own log lines
    });
    child.once('exit', (code) => reject(new Error(`the product did not start (exit ${code})`)));
  });
  JSON.parse(line); // fails here, loudly, if the product printed something else
  mkdirSync(path.dirname(PRODUCT_FILE), { recursive: true });
  writeFileSync(PRODUCT_FILE, line);
  return async () => {
    rmSync(PRODUCT_FILE, { force: true });
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
}
