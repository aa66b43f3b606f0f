// One namespace's state while it serves: what was loaded at start (policies, profile, catalog,
// guards, tasks), the tool registry built from it, the verified identity and the audit log.
// A Session never changes: a profile switch (switchProfile) builds a new one and puts it in the
// Namespace, so a call that took the session at its start keeps one profile, token and identity.
import type { PolicySet } from '../policy-files/policy-set.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { ExecutorOptions } from '../gitea/options.js';
import type { GiteaIdentity } from '../gitea/gitea-identity.js';
import type { GiteaHttpClient } from '../gitea/http.js';
import type { DecideContext } from '../policy/decide.js';
import type { CompiledProfile } from '../policy/profile.js';
import type { TaskCatalog } from '../policy/tasks.js';
import type { Logger } from '../shared/logger.js';
import type { Settings } from './settings.js';
import type { AuditSink } from './audit-sink.js';
import type { IdentityVerifier } from './identity.js';
import type { BuiltinTool } from './builtin/builtin-tool.js';
import type { ToolRegistry } from './tool-registry.js';
import type { TaintTracker } from './taint-tracker.js';
import type { ConfirmRuntime } from './confirm/runtime.js';
import type { BudgetStore } from './call/budget.js';

/** A file whose content the running server depends on, with its hash at start. */
export interface WatchedFile {
  path: string;
  sha256: string;
}

export interface Session {
  readonly version: string;
  readonly settings: Settings;
  readonly logger: Logger;
  readonly policy: PolicySet;
  readonly decideContext: DecideContext;
  readonly tasks: TaskCatalog;
  readonly entries: readonly CatalogEntry[];
  readonly builtins: readonly BuiltinTool[];
  readonly audit: AuditSink;
  readonly executorOptions: Partial<ExecutorOptions>;
  /** The process environment the tokens are read from (again when gitea_activate_profile switches). */
  readonly env: NodeJS.ProcessEnv;
  /** The profile file and policies/*.yaml as they were when the server started. */
  readonly watchedFiles: readonly WatchedFile[];
  readonly profile: CompiledProfile;
  readonly registry: ToolRegistry;
  /** Base URL and token of the profile's Gitea identity; the token is never shown. */
  readonly gitea: GiteaIdentity;
  /** Null when no token is configured: reads then fail at Gitea, mutations fail closed. */
  readonly client: GiteaHttpClient | null;
  readonly identity: IdentityVerifier;
  /** Set when this session runs one call for a person signed in through OAuth (src/server/caller-session.ts). */
  readonly signedIn?: { readonly login: string };
  /** What this principal has read through this namespace: untrusted and private content, and from where (survives a profile switch). */
  readonly taint: TaintTracker;
  /** Who confirms what cannot be undone, the state sealer and the shared store (src/server/confirm/). */
  readonly confirm: ConfirmRuntime;
  /** Where the profile's call budgets are counted (shared across a profile switch and by every caller of the namespace). */
  readonly budgets: BudgetStore;
}

/** What one serving process holds: the current session, replaced whole by a profile switch. */
export interface Namespace {
  session: Session;
}
