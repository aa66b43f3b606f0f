// Reads the committed catalog (src/catalog/tools.json) once; the spec is never read at run time.
import { readFileSync } from 'node:fs';
import { catalogFile } from '../shared/paths.js';
import type { Catalog, CatalogEntry } from './types.js';

let cached: Catalog | undefined;
let byName: Map<string, CatalogEntry> | undefined;
let byOperationId: Map<string, CatalogEntry> | undefined;

export function loadCatalog(): Catalog {
  cached ??= readCatalog(catalogFile);
  return cached;
}

export function catalogByName(): Map<string, CatalogEntry> {
  byName ??= new Map(loadCatalog().entries.map((e) => [e.name, e]));
  return byName;
}

export function catalogByOperationId(): Map<string, CatalogEntry> {
  byOperationId ??= new Map(loadCatalog().entries.map((e) => [e.operationId, e]));
  return byOperationId;
}

/** Reads and shape-checks a catalog file; fails with a hint rather than serving a partial catalog. */
export function readCatalog(file: string): Catalog {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`cannot read the tool catalog ${file}; regenerate it with: gitea-warden catalog generate`);
  }
  const catalog = data as Partial<Catalog>;
  if (!catalog.source || !Array.isArray(catalog.entries) || catalog.entries.length === 0) {
    throw new Error(
      `the tool catalog ${file} has no source or no entries; regenerate it with: gitea-warden catalog generate`,
    );
  }
  return catalog as Catalog;
}
