// Validators for the JSON Schemas under policies/, compiled when the package is built (ajv's
// standalone code, dist/shared/precompiled-schemas.cjs, written by scripts/precompile-schemas.mjs) so
// a namespace does not compile them at every start. A validator is used only for the exact schema it
// was compiled from (same $id and sha256 of its JSON); anything else (a changed schema, a copy of
// policies/ with other schemas, running from src/ without a build) is compiled at run time as before.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';

/** What the generated module exports: per $id, the sha256 of the schema's JSON and its validator. */
export type PrecompiledSchemas = Record<string, { sha256: string; validate: ValidateFunction }>;

export const PRECOMPILED_MODULE = 'precompiled-schemas.cjs';

let loaded: PrecompiledSchemas | null | undefined;

function precompiled(): PrecompiledSchemas | null {
  if (loaded !== undefined) return loaded;
  try {
    const require = createRequire(import.meta.url);
    loaded = require(join(import.meta.dirname, PRECOMPILED_MODULE)) as PrecompiledSchemas;
  } catch {
    loaded = null;
  }
  return loaded;
}

export function schemaSha256(schema: object): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}

/** The precompiled validator of exactly this schema, or null. */
export function precompiledValidator(id: string, schema: object): ValidateFunction | null {
  const entry = precompiled()?.[id];
  return entry && entry.sha256 === schemaSha256(schema) ? entry.validate : null;
}
