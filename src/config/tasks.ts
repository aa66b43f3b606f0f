// Loads policies/tasks.yaml, validated against its schema; any error throws, so
// resolve_task_capability never answers from a half-read file.
import { join } from 'node:path';
import type { TaskCatalog } from '../policy/tasks.js';
import { policiesDir } from './paths.js';
import { readValidatedDocument } from './validated.js';

export const tasksFile: string = join(policiesDir, 'tasks.yaml');

export function loadTaskCatalog(file: string = tasksFile, schemaFile: string = join(policiesDir, 'tasks.schema.json')): TaskCatalog {
  return readValidatedDocument(file, schemaFile).data as TaskCatalog;
}
