import { readFileSync } from 'node:fs';
import { CatalogSchema, type Catalog } from './schema.js';

export function parseCatalog(raw: unknown, source = 'catalog'): Catalog {
  const parsed = CatalogSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`${source} is not valid: ${problems}`);
  }
  return parsed.data;
}

export function loadCatalog(path: string): Catalog {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the catalogue file ${path}: ${(error as Error).message}`);
  }
  return parseCatalog(raw, path);
}
