import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * One clock source: an account's "now" comes from ctx.clock (its test clock, or
 * real time), and what must follow the wall clock says so with wallClockNow().
 * A bare `new Date()` or `Date.now()` anywhere else would be a second source.
 */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SOURCES = ['billing-service/src', 'capture-service/src'];
const ALLOWED = new Set([
  // The clock itself.
  'billing-service/src/clock/account-clock.ts',
  // Shared with the shopper's browser (no server module may be imported there); cards expire on the real calendar.
  'billing-service/src/gateway/card-rules.ts',
]);
const BARE_CLOCK = /new Date\(\s*\)|Date\.now\(\s*\)/g;

function typeScriptFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

describe('one clock source', () => {
  it('no service code reads the time except through the account clock or, on purpose, the wall clock', () => {
    const offenders = SOURCES.flatMap(typeScriptFiles)
      .filter((file) => !ALLOWED.has(file))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, index) => (line.replace(/\/\/.*$/, '').match(BARE_CLOCK) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
  });

  it('the check finds a bare clock read (it is not vacuous)', () => {
    expect('const at = new Date();'.match(BARE_CLOCK)).not.toBeNull();
    expect('if (Date.now() > deadline)'.match(BARE_CLOCK)).not.toBeNull();
    expect('new Date(row.createdAt)'.match(BARE_CLOCK)).toBeNull();
    expect(typeScriptFiles('billing-service/src').length).toBeGreaterThan(100);
  });
});
