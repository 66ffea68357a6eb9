import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';

/** Set for the test workers: the migrated PGlite dump to load, or the PostgreSQL database to copy (test-database.ts). */
export const PGLITE_DUMP_ENV = 'RENEW_TEST_PGLITE_DUMP';
export const TEMPLATE_DATABASE_ENV = 'RENEW_TEST_TEMPLATE_DATABASE';

/**
 * vitest globalSetup: one database migrated by `openDatabase` itself, once per run, from the migrations as they
 * are now (never stored between runs); every test app then starts from a copy of it (a copy takes a fraction of
 * a fresh database plus every migration). Passed to the workers in the environment, which they inherit.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const serverUrl = process.env.RENEW_TEST_POSTGRES_URL;
  return serverUrl ? postgresTemplate(serverUrl) : pgliteDump();
}

async function postgresTemplate(serverUrl: string): Promise<() => Promise<void>> {
  const name = `renew_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  // Closed before any copy: CREATE DATABASE … TEMPLATE refuses a template with open connections.
  await (await openDatabase({ databaseUrl: url.toString(), poolSize: 1 })).close();
  process.env[TEMPLATE_DATABASE_ENV] = name;
  return () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
}

async function pgliteDump(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'renew-test-template-'));
  const dataDir = path.join(dir, 'data');
  // Built on disk by openDatabase (so it is exactly what a test app would get), then dumped for in-memory copies.
  await (await openDatabase({ dataDir })).close();
  const pglite = await PGlite.create({ dataDir });
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const file = path.join(dir, 'pgdata.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  rmSync(dataDir, { recursive: true, force: true });
  process.env[PGLITE_DUMP_ENV] = file;
  return async () => rmSync(dir, { recursive: true, force: true });
}

/** One statement on the server's maintenance database (CREATE and DROP DATABASE cannot run in the database itself). */
export async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
