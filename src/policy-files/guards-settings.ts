// Loads policies/guards.yaml, validated against policies/guards.schema.json; any error throws (the
// server refuses to start rather than run guards with unknown settings).
import { join } from 'node:path';
import { unknownGuardedOperations } from '../policy/guards/guarded-only.js';
import type { GuardsConfig } from '../policy/guards/settings.js';
import type { Vocabulary } from '../policy/vocabulary.js';
import { DocumentError } from '../shared/document.js';
import { policiesDir } from '../shared/paths.js';
import { readValidatedDocument } from './validated.js';

export const guardsFile: string = join(policiesDir, 'guards.yaml');

/** The guards' settings; a guarded_only entry outside the vocabulary would guard nothing, so it fails the load. */
export function loadGuardsConfig(vocabulary: Vocabulary, file: string = guardsFile): GuardsConfig {
  const doc = readValidatedDocument(file, 'guards');
  const config = doc.data as GuardsConfig;
  const unknown = unknownGuardedOperations(config.guarded_only, vocabulary)[0];
  if (unknown !== undefined) {
    throw new DocumentError(file, doc.lineOf(['guarded_only', unknown]), `unknown_operation: guarded_only names ${unknown}, which is not in policies/vocabulary.yaml`);
  }
  return config;
}
