// The tools one namespace serves. The operations it offers: every catalog operation the profile can
// perform (allowed, not forbidden, not guarded-only), narrowed by TOOLSETS, READ_ONLY and
// DISABLED_TOOLS. How they reach the client is the tool mode: static lists one tool per offered
// operation; discovery lists three tools that find, describe and call them, and still answers a call
// of an offered operation's own tool name. The same registry answers tools/list and the look-up of
// tools/call, so an operation the namespace does not offer is unknown to both.
import type { CatalogEntry } from '../catalog/types.js';
import type { OperationMap } from '../policy/operation-map.js';
import { didYouMean } from '../policy/nearest.js';
import type { BuiltinTool } from './builtin/builtin-tool.js';
import type { ToolModeSetting } from './settings.js';
import type { TokenScopeState } from './token-scope-filter.js';
import { builtinDefinition, listedDefinition, type ToolDefinition } from './tool-definitions.js';

export type { ToolDefinition } from './tool-definitions.js';

export type GiteaTool = { kind: 'gitea'; definition: ToolDefinition; entry: CatalogEntry };
export type RegisteredTool = GiteaTool | { kind: 'builtin'; definition: ToolDefinition; tool: BuiltinTool };

export type ToolMode = 'static' | 'discovery';

/** The mode in force and why, for gitea_server_status and the start-up log. */
export interface ToolModeChoice {
  requested: ToolModeSetting;
  mode: ToolMode;
  reason: string;
  /** What the static listing would hold: the measure TOOL_MODE=auto decides on. */
  staticListing: { tools: number; estimatedTokens: number };
}

/** What the common clients take: Cursor sends the first 40 tools to the model; the token budget of a static listing. */
export const CLIENT_LIMITS = { tools: 40, estimatedTokens: 12_000 } as const;

export interface ToolFilters {
  /** TOOLSETS: the domains served, 'all', or null when unset. */
  toolsets: readonly string[] | 'all' | null;
  /** The profile's toolsets: its static listing when TOOLSETS is unset (null: every domain). Discovery reaches every domain. */
  profileToolsets: readonly string[] | null;
  readOnly: boolean;
  disabledTools: readonly string[];
  /** List tools the profile can never be allowed (debugging; static listings only). */
  listDenied: boolean;
  mode: ToolModeSetting;
}

/** The operations the profile may actually perform (allowed, not forbidden). */
export type EffectiveOperations = ReadonlySet<string>;

export class ToolRegistryError extends Error {
  override name = 'ToolRegistryError';
}

export class ToolRegistry {
  private readonly byName: ReadonlyMap<string, RegisteredTool>;
  private readonly operationsByName: ReadonlyMap<string, GiteaTool>;

  constructor(
    readonly tools: readonly RegisteredTool[],
    /** The operations offered in discovery mode (find, describe, call); empty in static mode. */
    readonly operations: readonly GiteaTool[],
    readonly mode: ToolModeChoice,
    private readonly disabledTools: ReadonlySet<string> = new Set(),
    /** Operations outside TOOLSETS or READ_ONLY: not offered, whatever the profile allows. */
    private readonly filteredOut: ReadonlySet<string> = new Set(),
    /**
     * What the token can call (./token-scopes.ts): an operation it lacks a scope for is neither listed nor
     * found by discovery; get() still finds it, so its call is refused naming the scope. Null: not known.
     */
    readonly tokenScopes: TokenScopeState | null = null,
  ) {
    this.byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
    this.operationsByName = new Map(operations.map((tool) => [tool.definition.name, tool]));
  }

  /** A tool tools/call may name: a listed one, or (discovery) an offered operation by its tool name, as find shows it. */
  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name) ?? this.operationsByName.get(name);
  }

  /** An operation gitea_find_operations and gitea_describe_operation may show. */
  operation(name: string): GiteaTool | undefined {
    const tool = this.operationsByName.get(name);
    return tool && this.tokenCan(tool) ? tool : undefined;
  }

  /** The same registry, seen through a token's scopes. */
  withTokenScopes(scopes: TokenScopeState): ToolRegistry {
    return new ToolRegistry(this.tools, this.operations, this.mode, this.disabledTools, this.filteredOut, scopes);
  }

  private tokenCan(tool: RegisteredTool): boolean {
    return tool.kind !== 'gitea' || !this.tokenScopes || this.tokenScopes.missing(tool.entry.tokenScopes).length === 0;
  }

  /** Named in DISABLED_TOOLS: the operator took it away, so the raw tool may not reach its operation either. */
  isDisabled(name: string): boolean {
    return this.disabledTools.has(name);
  }

  /** Outside the namespace's TOOLSETS or READ_ONLY: gitea_call_operation does not reach it. */
  isFilteredOut(name: string): boolean {
    return this.filteredOut.has(name);
  }

  definitions(): ToolDefinition[] {
    return this.tools.filter((tool) => this.tokenCan(tool)).map((tool) => tool.definition);
  }
}

export interface RegistrySources {
  entries: readonly CatalogEntry[];
  builtins: readonly BuiltinTool[];
  operationMap: OperationMap;
  effective: EffectiveOperations;
  /** Operations only guarded built-in tools perform (policies/guards.yaml guarded_only): never a generated tool's. */
  guardedOnly: ReadonlySet<string>;
  /** The profile's role, for built-in tools that require one. */
  role: string | null;
}

/** Builds the filtered registry; an unknown DISABLED_TOOLS name or TOOLSETS domain is an error (start-up stops). */
export function buildToolRegistry(sources: RegistrySources, filters: ToolFilters): ToolRegistry {
  checkFilterNames(sources, filters);
  const disabled = new Set(filters.disabledTools);
  const canPerform = (entry: CatalogEntry) =>
    possiblePrimaries(sources.operationMap, entry.operationId).some(
      (op) => sources.effective.has(op) && !sources.guardedOnly.has(op),
    );
  const served = (entry: CatalogEntry, toolsets: readonly string[] | null) =>
    (toolsets === null || toolsets.includes(entry.domain)) &&
    (!filters.readOnly || entry.annotations.readOnly) &&
    !disabled.has(entry.name);
  const asTool = (entry: CatalogEntry): GiteaTool => ({ kind: 'gitea', entry, definition: listedDefinition(entry) });

  const staticToolsets = filters.toolsets === 'all' ? null : (filters.toolsets ?? filters.profileToolsets);
  const discoveryToolsets = filters.toolsets === 'all' ? null : filters.toolsets;
  const staticGitea = sources.entries
    // The profile's default listing leaves out what Gitea deprecated (a newer operation does the same); TOOLSETS lists all.
    .filter(
      (entry) =>
        served(entry, staticToolsets) &&
        !(entry.deprecated && filters.toolsets === null) &&
        (filters.listDenied || canPerform(entry)),
    )
    .map(asTool);
  const builtins = sources.builtins
    // READ_ONLY keeps the discovery tools: gitea_call_operation reaches only the offered operations, all reads then.
    .filter((tool) => !filters.readOnly || tool.annotations.readOnlyHint || tool.discovery === true)
    .filter(
      (tool) =>
        filters.listDenied ||
        (tool.operations.every((op) => sources.effective.has(op)) &&
          (tool.role === undefined || tool.role === sources.role)),
    )
    .filter((tool) => !disabled.has(tool.name));
  const always = builtins
    .filter((tool) => !tool.discovery)
    .map((tool): RegisteredTool => ({ kind: 'builtin', tool, definition: builtinDefinition(tool) }));
  const staticTools = [...always, ...staticGitea];
  const choice = chooseMode(
    filters.mode,
    staticTools.map((tool) => tool.definition),
  );

  if (choice.mode === 'static') return new ToolRegistry(staticTools, [], choice, disabled);
  const discoveryTools = builtins
    .filter((tool) => tool.discovery)
    .map((tool): RegisteredTool => ({ kind: 'builtin', tool, definition: builtinDefinition(tool) }));
  const offered = sources.entries.filter((entry) => served(entry, discoveryToolsets) && canPerform(entry)).map(asTool);
  const filteredOut = new Set(
    sources.entries
      .filter((entry) => !served(entry, discoveryToolsets) && !disabled.has(entry.name))
      .map((entry) => entry.name),
  );
  return new ToolRegistry([...always, ...discoveryTools], offered, choice, disabled, filteredOut);
}

/** Bytes of a tools/list result ({"tools": [...]}) and its token estimate (bytes / 4), the measure clients pay. */
export function listingSize(tools: readonly ToolDefinition[]): { bytes: number; estimatedTokens: number } {
  const bytes = Buffer.byteLength(JSON.stringify({ tools }), 'utf8');
  return { bytes, estimatedTokens: Math.round(bytes / 4) };
}

function chooseMode(requested: ToolModeSetting, staticListing: readonly ToolDefinition[]): ToolModeChoice {
  const size = { tools: staticListing.length, estimatedTokens: listingSize(staticListing).estimatedTokens };
  const measured = `the static listing is ${size.tools} tools, ~${size.estimatedTokens} tokens`;
  if (requested !== 'auto')
    return { requested, mode: requested, reason: `TOOL_MODE=${requested}; ${measured}`, staticListing: size };
  const limits = `${CLIENT_LIMITS.tools} tools, ${CLIENT_LIMITS.estimatedTokens} tokens`;
  const fits = size.tools <= CLIENT_LIMITS.tools && size.estimatedTokens <= CLIENT_LIMITS.estimatedTokens;
  return fits
    ? {
        requested,
        mode: 'static',
        reason: `TOOL_MODE=auto: ${measured}, within the common client limits (${limits})`,
        staticListing: size,
      }
    : {
        requested,
        mode: 'discovery',
        reason: `TOOL_MODE=auto: ${measured}, over the common client limits (${limits})`,
        staticListing: size,
      };
}

/** The canonical primaries a call of this operationId can have: the mapping's default and each rule's. */
export function possiblePrimaries(map: OperationMap, operationId: string): string[] {
  const mapping = map.byOperationId.get(operationId);
  if (!mapping) return [];
  return [mapping.operation, ...mapping.rules.flatMap((rule) => (rule.operation ? [rule.operation] : []))];
}

function checkFilterNames(sources: RegistrySources, filters: ToolFilters): void {
  const names = new Set([...sources.entries.map((e) => e.name), ...sources.builtins.map((t) => t.name)]);
  const unknownTool = filters.disabledTools.find((name) => !names.has(name));
  if (unknownTool !== undefined)
    throw new ToolRegistryError(
      `DISABLED_TOOLS names '${unknownTool}', which is no tool${didYouMean(unknownTool, names)}; see gitea-warden tools`,
    );
  const domains = new Set(sources.entries.map((e) => e.domain));
  const requested = [...(Array.isArray(filters.toolsets) ? filters.toolsets : []), ...(filters.profileToolsets ?? [])];
  const unknownDomain = requested.find((name) => !domains.has(name));
  if (unknownDomain !== undefined) {
    throw new ToolRegistryError(
      `TOOLSETS names '${unknownDomain}', which is no domain${didYouMean(unknownDomain, domains)}; known: ${[...domains].sort().join(', ')}`,
    );
  }
}
