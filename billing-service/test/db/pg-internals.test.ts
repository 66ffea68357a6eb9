import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

// db/prepared-statements.ts (QueryAfterBegin) writes to pg's private connection fields to send a
// transaction's `begin` with its first statement. package.json pins pg and pg-protocol to exact
// versions; this test fails loudly when an upgrade changes the versions or moves those fields.
const require = createRequire(import.meta.url);
const ownPackage = require('../../package.json') as { dependencies: Record<string, string> };

/** The version of an installed package (pg-protocol does not export its package.json). */
function installedVersion(name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (manifest.name === name) return manifest.version;
    } catch {
      // no package.json at this level: go up
    }
  }
  throw new Error(`${name}: package.json not found`);
}

describe("pg's private fields that the prepared-statement pool relies on", () => {
  it('pg and pg-protocol are installed at the exact versions package.json pins', () => {
    for (const name of ['pg', 'pg-protocol']) {
      const installed = installedVersion(name);
      expect(ownPackage.dependencies[name], `${name} must be pinned to an exact version`).toMatch(/^\d+\.\d+\.\d+$/);
      expect(installed, `${name} installed`).toBe(ownPackage.dependencies[name]);
    }
  });

  it("a client's connection has parse, bind, execute and submittedNamedStatements, and Query has hasBeenParsed", () => {
    const client = new pg.Client({ host: '127.0.0.1', port: 1 }) as unknown as { connection: Record<string, unknown> };
    const connection = client.connection;
    expect(typeof connection.parse).toBe('function');
    expect(typeof connection.bind).toBe('function');
    expect(typeof connection.execute).toBe('function');
    expect(connection.submittedNamedStatements).toEqual({});
    const query = new pg.Query({ text: 'select 1', name: 'probe' }) as unknown as { hasBeenParsed?: unknown; prepare?: unknown };
    expect(typeof query.hasBeenParsed).toBe('function');
    expect(typeof query.prepare).toBe('function');
  });
});
