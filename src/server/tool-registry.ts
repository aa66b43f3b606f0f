// The tools one namespace serves: one per catalog operation plus the built-in tools, filtered by
// TOOLSETS, READ_ONLY, DISABLED_TOOLS and profile visibility. The same registry answers tools/list
// and the look-up of tools/call, so a filtered tool is unknown to both.
import type { CatalogEntry, JsonSchema } from '../catalog/types.js';
import type { OperationMap } from '../policy/operation-map.js';
import type { BuiltinTool, ToolAnnotations } from './builtin/types.js';

export type RegisteredTool =
  | { kind: 'gitea'; definition: ToolDefinition; entry: CatalogEntry }
  | { kind: 'builtin'; definition: ToolDefinition; tool: BuiltinTool };

/** A tool as tools/list sends it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations & { title: string };
}

export interface ToolFilters {
  /** Domains served; null: every domain. */
  toolsets: readonly string[] | null;
  readOnly: boolean;
  disabledTools: readonly string[];
  /** List tools the profile can never be allowed (debugging). */
  listDenied: boolean;
}

/** The operations the profile may actually perform (allowed, not forbidden). */
export type EffectiveOperations = ReadonlySet<string>;

export class ToolRegistryError extends Error {
  override name = 'ToolRegistryError';
}

export class ToolRegistry {
  private readonly byName: ReadonlyMap<string, RegisteredTool>;

  constructor(
    readonly tools: readonly RegisteredTool[],
    private readonly disabledTools: ReadonlySet<string> = new Set(),
  ) {
    this.byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** Named in DISABLED_TOOLS: the operator took it away, so the raw tool may not reach its operation either. */
  isDisabled(name: string): boolean {
    return this.disabledTools.has(name);
  }

  definitions(): ToolDefinition[] {
    return this.tools.map((tool) => tool.definition);
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
  const gitea = sources.entries
    .filter((entry) => filters.toolsets === null || filters.toolsets.includes(entry.domain))
    .filter((entry) => !filters.readOnly || entry.annotations.readOnly)
    .filter((entry) => filters.listDenied || possiblePrimaries(sources.operationMap, entry.operationId).some((op) => sources.effective.has(op) && !sources.guardedOnly.has(op)))
    .map((entry): RegisteredTool => ({ kind: 'gitea', entry, definition: giteaDefinition(entry) }));
  const builtins = sources.builtins
    .filter((tool) => !filters.readOnly || tool.annotations.readOnlyHint)
    .filter((tool) => filters.listDenied || (tool.operations.every((op) => sources.effective.has(op)) && (tool.role === undefined || tool.role === sources.role)))
    .map((tool): RegisteredTool => ({ kind: 'builtin', tool, definition: builtinDefinition(tool) }));
  const disabled = new Set(filters.disabledTools);
  return new ToolRegistry([...builtins, ...gitea].filter((tool) => !disabled.has(tool.definition.name)), disabled);
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
  if (unknownTool !== undefined) throw new ToolRegistryError(`DISABLED_TOOLS names '${unknownTool}', which is no tool; see gitea-warden tools`);
  const domains = new Set(sources.entries.map((e) => e.domain));
  const unknownDomain = filters.toolsets?.find((name) => !domains.has(name));
  if (unknownDomain !== undefined) {
    throw new ToolRegistryError(`TOOLSETS names '${unknownDomain}', which is no domain; known: ${[...domains].sort().join(', ')}`);
  }
}

function giteaDefinition(entry: CatalogEntry): ToolDefinition {
  const title = entry.summary || `${entry.method} ${entry.path}`;
  const description = [entry.summary, entry.description, `Gitea API: ${entry.method} ${entry.path} (${entry.operationId}).`]
    .filter((part): part is string => Boolean(part))
    .join('\n\n');
  return {
    name: entry.name,
    title,
    description,
    inputSchema: entry.inputSchema,
    annotations: {
      title,
      readOnlyHint: entry.annotations.readOnly,
      destructiveHint: entry.annotations.destructive,
      idempotentHint: entry.annotations.idempotent,
      openWorldHint: true,
    },
  };
}

function builtinDefinition(tool: BuiltinTool): ToolDefinition {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { title: tool.title, ...tool.annotations },
  };
}
