// Loads policies/guards.yaml, validated against its schema; any error throws (the server refuses
// to start rather than run guards with unknown settings).
import { join } from 'node:path';
import type { GuardsConfig } from '../policy/guards/settings.js';
import { policiesDir } from './paths.js';
import { readValidatedDocument } from './validated.js';

export const guardsFile: string = join(policiesDir, 'guards.yaml');

export function loadGuardsConfig(file: string = guardsFile, schemaFile: string = join(policiesDir, 'guards.schema.json')): GuardsConfig {
  return readValidatedDocument(file, schemaFile).data as GuardsConfig;
}
