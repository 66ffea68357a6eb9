import { PGlite } from '@electric-sql/pglite';
import { mkdtempSync } from 'node:fs';
async function rate(p: PGlite, label: string, sqlText: string, rnd: boolean) {
  let n = 0; const end = Date.now() + 2000;
  while (Date.now() < end) { await p.query(sqlText, [rnd ? 1 + (n * 7919) % 100000 : 5]); n++; }
  console.log(label, n / 2);
}
for (const dataDir of [undefined, mkdtempSync('/tmp/proto/pgl-')]) {
  let t = Date.now();
  const p = await PGlite.create(dataDir ? { dataDir } : {});
  console.log(dataDir ?? 'memory', 'create', Date.now() - t);
  await p.exec(`create table customers (id integer generated always as identity primary key, account_id int, last_name text, currency text, created_at timestamptz default now(), status text default 'Draft', a text, b text, c text, d text)`);
  t = Date.now();
  await p.exec(`insert into customers (account_id, last_name, currency, created_at) select 1, 'S' || (i % 1000), 'USD', now() - i * interval '1 minute' from generate_series(1,100000) i; analyze`);
  console.log('seed', Date.now() - t);
  await rate(p, 'select 1', 'select $1::int', false);
  await rate(p, 'point same id', 'select * from customers where id = $1', false);
  await rate(p, 'point random', 'select * from customers where id = $1', true);
  await rate(p, 'point random again', 'select * from customers where id = $1', true);
  await p.close();
}
