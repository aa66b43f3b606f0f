// Loads policies/tasks.yaml, validated against policies/tasks.schema.json; any error throws, so
// resolve_task_capability never answers from a half-read file.
import { join } from 'node:path';
import type { TaskCatalog } from '../policy/tasks.js';
import { policiesDir } from '../shared/paths.js';
import { readValidatedDocument } from './validated.js';

export const tasksFile: string = join(policiesDir, 'tasks.yaml');

export function loadTaskCatalog(file: string = tasksFile): TaskCatalog {
  return readValidatedDocument(file, 'tasks').data as TaskCatalog;
}
