import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** What the figures were measured on. */
export function machineDescription(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  const memory = `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM`;
  return `${cpus.length} CPUs (${model}), ${memory}, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
}

/** The installed version of a package (found from its entry point, since some do not export package.json). */
export function packageVersion(name: string): string {
  try {
    let dir = path.dirname(createRequire(import.meta.url).resolve(name));
    while (dir !== path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (existsSync(file)) {
        const json = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (json.name === name) return json.version ?? '?';
      }
      dir = path.dirname(dir);
    }
  } catch {
    // fall through
  }
  return '?';
}

export function loadAverage(): string {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
}
