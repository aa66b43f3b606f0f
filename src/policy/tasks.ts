// resolve_task_capability: can this session do the task, and if not, which namespace can.
// Tasks are data (policies/tasks.yaml); the session is described by its role and a predicate over
// canonical operations, so this stays independent of how profiles are compiled.
import { didYouMean } from './nearest.js';

export type TaskRole = 'issue-manager' | 'author' | 'reviewer' | 'merger' | 'owner' | 'reconciler' | 'any';

export interface TaskDefinition {
  role: TaskRole;
  /** Canonical operations the task needs; every one must be allowed. */
  permissions: string[];
  /** Built-in tool to use for it. */
  tool?: string;
  /** The raw Gitea tool is refused for every role; only `tool` may do it. */
  guarded_only?: boolean;
  meaning: string;
}

export interface TaskCatalog {
  tasks: Record<string, TaskDefinition>;
}

export interface TaskSession {
  role: string | null;
  profileName: string;
  isAllowed(operation: string): boolean;
}

export type TaskReason = 'allowed' | 'unknown_task' | 'role_mismatch' | 'permission_not_allowed' | 'guarded_tool_only';

export interface TaskCapability {
  task: string;
  role: TaskRole | null;
  permissions: string[];
  allowed_in_current_session: boolean;
  /** The reference namespace whose role does the task, when it is not this session's. */
  use_namespace?: string;
  tool?: string;
  reason: TaskReason;
  /** Permissions the current profile does not allow. */
  missing_permissions?: string[];
  hint?: string;
}

export function resolveTaskCapability(catalog: TaskCatalog, task: string, session: TaskSession): TaskCapability {
  const definition = Object.hasOwn(catalog.tasks, task) ? catalog.tasks[task] : undefined;
  if (!definition) {
    const known = Object.keys(catalog.tasks).sort().join(', ');
    return {
      task,
      role: null,
      permissions: [],
      allowed_in_current_session: false,
      reason: 'unknown_task',
      hint: `Unknown task${didYouMean(task, Object.keys(catalog.tasks))}. Known tasks: ${known}.`,
    };
  }
  const { role, permissions, tool } = definition;
  const base = { task, role, permissions: [...permissions], ...(tool ? { tool } : {}) };
  const missing = permissions.filter((op) => !session.isAllowed(op));
  const roleMatches = role === 'any' || session.role === role;
  const elsewhere = roleMatches ? {} : { use_namespace: `gitea-${role}` };
  const where = roleMatches ? 'this namespace' : `the gitea-${role} namespace`;
  if (definition.guarded_only) {
    return {
      ...base,
      allowed_in_current_session: false,
      ...elsewhere,
      reason: 'guarded_tool_only',
      hint: `No role may do this through the raw Gitea tool; use the ${tool} tool in ${where}.`,
    };
  }
  if (!roleMatches) {
    return {
      ...base,
      allowed_in_current_session: false,
      ...elsewhere,
      reason: 'role_mismatch',
      hint: `This is ${role} work; use ${where}.`,
    };
  }
  if (missing.length > 0) {
    const hint =
      `Profile ${session.profileName} does not allow ${missing.join(', ')}; ask its owner ` +
      `to add ${missing.length > 1 ? 'them' : 'it'}, or use a namespace whose profile does.`;
    return {
      ...base,
      allowed_in_current_session: false,
      reason: 'permission_not_allowed',
      missing_permissions: missing,
      hint,
    };
  }
  return { ...base, allowed_in_current_session: true, reason: 'allowed' };
}
