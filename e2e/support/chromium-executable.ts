import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LaunchOptions } from '@playwright/test';

/** Where Debian's `chromium` package (and its look-alikes) put the browser. */
const SYSTEM_CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * Flags of @sparticuz/chromium (made for AWS Lambda) left out here:
 * - those that change what pages may do (same-origin policy and CORS off, mixed
 *   content allowed): the tests must see the widget's cross-origin calls to the
 *   capture host as a shopper's browser does;
 * - --single-process: Playwright closes a browser context after each test, and a
 *   single-process Chromium dies with it ("Target page, context or browser has
 *   been closed" in the next test);
 * - its --disable-features / --enable-features lists (Lambda's memory savings,
 *   and site isolation off, for --single-process): Chromium keeps only the last
 *   of each switch, so they would replace the lists Playwright passes itself.
 */
function keepArg(arg: string): boolean {
  return (
    !['--disable-web-security', '--allow-running-insecure-content', '--single-process'].includes(arg) &&
    !arg.startsWith('--disable-features=') &&
    !arg.startsWith('--enable-features=')
  );
}

/**
 * The Chromium the browser tests launch. Playwright cannot download its own
 * browsers here, so: RENEW_CHROMIUM, else the system's Chromium (Debian's
 * `chromium`, as CI installs it), else the headless Chromium shipped inside the
 * npm package @sparticuz/chromium, so that `npm ci && npm test` needs no
 * system browser. Its binary is brotli-compressed in the package and must be
 * unpacked before use, which is asynchronous: playwright.config.ts awaits this
 * at top level (the config is an ES module), once in the runner and once per
 * worker; after the first unpacking it is a file check.
 */
export async function chromiumLaunchOptions(): Promise<LaunchOptions> {
  const system = process.env.RENEW_CHROMIUM || SYSTEM_CHROMIUM.find((p) => existsSync(p));
  if (system) return { executablePath: system };
  const { default: chromium } = await import('@sparticuz/chromium');
  return {
    executablePath: await unpack(() => chromium.executablePath()),
    args: chromium.args.filter(keepArg), // --no-sandbox, --no-zygote, --headless='shell', SwiftShader for WebGL…
    headless: true,
  };
}

/**
 * @sparticuz/chromium unpacks into os.tmpdir() itself (chromium, fonts/, the
 * SwiftShader libraries) and reuses any `chromium` already there, even a
 * half-written one or another version's. So it unpacks into a fresh directory
 * (TMPDIR pointed there for the call), renamed into place, one per version,
 * only when complete: an interrupted or concurrent run cannot leave a broken one.
 */
async function unpack(executablePath: () => Promise<string>): Promise<string> {
  const packageDir = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '../..');
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(tmpdir(), `renew-sparticuz-chromium-${version}`);
  const executable = path.join(dir, 'chromium');
  if (existsSync(executable)) return executable;

  const partial = mkdtempSync(`${dir}.partial-`);
  const savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = partial;
  try {
    const unpacked = await executablePath();
    if (unpacked !== path.join(partial, 'chromium')) throw new Error(`@sparticuz/chromium unpacked to ${unpacked}, expected ${partial}`);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  } finally {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
  }
  try {
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(executable)) throw error; // else another run got there first
  }
  return executable;
}
