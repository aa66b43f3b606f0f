// Loads policies/guards.yaml, validated against policies/guards.schema.json; any error throws (the
// server refuses to start rather than run guards with unknown settings).
import { join } from 'node:path';
import type { GuardsConfig } from '../policy/guards/settings.js';
import { policiesDir } from './paths.js';
import { readValidatedDocument } from './validated.js';

export const guardsFile: string = join(policiesDir, 'guards.yaml');

export function loadGuardsConfig(file: string = guardsFile): GuardsConfig {
  return readValidatedDocument(file, 'guards').data as GuardsConfig;
}
