import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Asset {
  body: string;
  /** A strong validator for conditional requests. */
  etag: string;
}

const SCRIPT_ENTRY = fileURLToPath(new URL('./browser/card-fields-frame.ts', import.meta.url));
const STYLESHEET = fileURLToPath(new URL('./card-fields.css', import.meta.url));

function asset(body: string): Asset {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/**
 * The frame's script, bundled from TypeScript with the shared card rules on
 * first use and kept for the life of the process: no build step to remember,
 * from a fresh clone as in production, and nothing from anywhere but this
 * repository goes into it.
 */
const bundles = new Map<string, Promise<Asset>>();
export function cardFieldsScript(): Promise<Asset> {
  return browserBundle(SCRIPT_ENTRY);
}

/**
 * A browser script of this host, bundled as above on first use: the card fields' (this repository's code
 * only) and the portal's (with Lit, from the workspace's node_modules, as the widget's bundle has it).
 */
export function browserBundle(entry: string): Promise<Asset> {
  const known = bundles.get(entry);
  if (known) return known;
  const script = build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  }).then((result) => {
    // write: false gives the bundle in outputFiles, one file for one entry.
    const [output] = result.outputFiles;
    if (!output) throw new Error(`esbuild gave no output for ${entry}`);
    return asset(output.text);
  });
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
