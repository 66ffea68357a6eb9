import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: string;
  /** A strong validator for conditional requests. */
  etag: string;
}

/** Running the compiled build (`npm start`): its browser scripts were bundled by `npm run build` (scripts/build.mjs). */
const COMPILED = import.meta.url.endsWith('.js');
const SCRIPT_ENTRY = fileURLToPath(new URL('./browser/card-fields-frame.ts', import.meta.url));
const STYLESHEET = fileURLToPath(new URL('./card-fields.css', import.meta.url));

function asset(body: string): Asset {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/**
 * The frame's script, bundled from TypeScript with the shared card rules: by `npm run build` for the
 * compiled build, on first use when running from sources (tests, tsx); kept for the life of the process.
 * Nothing from anywhere but this repository goes into it.
 */
const bundles = new Map<string, Promise<Asset>>();
export function cardFieldsScript(): Promise<Asset> {
  return browserBundle(SCRIPT_ENTRY);
}

/** One browser script bundled (the build's and the source run's one way of doing it). */
export async function bundleBrowserScript(entry: string): Promise<string> {
  // Loaded only when bundling: the compiled build never does.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  // write: false gives the bundle in outputFiles, one file for one entry.
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild gave no output for ${entry}`);
  return output.text;
}

/**
 * A browser script of this host (an entry's .ts path beside the importing module): the card fields'
 * (this repository's code only) and the portal's (with Lit, from the workspace's node_modules, as the
 * widget's bundle has it). The compiled build reads the bundle the build wrote at the same path as .js.
 */
export function browserBundle(entry: string): Promise<Asset> {
  const known = bundles.get(entry);
  if (known) return known;
  const script = (COMPILED ? readFile(entry.replace(/\.ts$/, '.js'), 'utf8') : bundleBrowserScript(entry)).then(asset);
  bundles.set(entry, script);
  // A failed build is tried again on the next request rather than remembered.
  script.catch(() => bundles.delete(entry));
  return script;
}

let stylesheet: Promise<Asset> | undefined;
export function cardFieldsStylesheet(): Promise<Asset> {
  stylesheet ??= readFile(STYLESHEET, 'utf8').then(asset);
  stylesheet.catch(() => (stylesheet = undefined));
  return stylesheet;
}
