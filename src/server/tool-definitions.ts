// What tools/list says about a tool. A generated tool has two forms: the full one (Gitea's whole
// description, the input schema calls are validated against), which gitea_describe_operation
// returns, and the listed one, which keeps what a model needs to call the tool correctly (every
// parameter's name, type, required flag, enum and format, the summary) and leaves out what repeats
// in every tool or only restates a name. Calls are always validated against the full schema.
import type { CatalogEntry, JsonSchema } from '../catalog/types.js';
import { PAYLOAD_JSON_SCHEMA } from '../gitea/envelope.js';
import { withRevealOption } from '../gitea/reveal.js';
import type { BuiltinTool, ToolAnnotations } from './builtin/builtin-tool.js';

/**
 * The result envelope's schema (src/gitea/envelope.ts), the outputSchema of a generated tool's full
 * definition (what gitea_describe_operation answers). Listings leave it out like the rest of what
 * repeats in every tool: some 240 tokens a tool, which would push static listings past the limits
 * TOOL_MODE=auto keeps and the discovery listing past its budget (docs/namespaces.md).
 */
const RESULT_SCHEMA = PAYLOAD_JSON_SCHEMA as unknown as JsonSchema;

/** A tool as tools/list sends it. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  /** The result's structuredContent, for tools that answer with the result envelope (src/gitea/envelope.ts). */
  outputSchema?: JsonSchema;
  annotations: Partial<ToolAnnotations> & { title?: string };
}

/** Today's full definition of a generated tool: what gitea_describe_operation answers. */
export function fullDefinition(entry: CatalogEntry): ToolDefinition {
  const title = entry.summary || `${entry.method} ${entry.path}`;
  const description = [
    entry.summary,
    entry.description,
    `Gitea API: ${entry.method} ${entry.path} (${entry.operationId}).`,
  ]
    .filter((part): part is string => Boolean(part))
    .join('\n\n');
  return {
    name: entry.name,
    title,
    description,
    inputSchema: withRevealOption(entry, entry.inputSchema),
    outputSchema: RESULT_SCHEMA,
    annotations: {
      title,
      readOnlyHint: entry.annotations.readOnly,
      destructiveHint: entry.annotations.destructive,
      idempotentHint: entry.annotations.idempotent,
      openWorldHint: true,
    },
  };
}

/**
 * The listed form: the summary as description (the title would repeat it), only the annotations that
 * differ from MCP's defaults (readOnly false, destructive true, idempotent false, openWorld true), and
 * the schema without the repeated parts (see listedSchema).
 */
export function listedDefinition(entry: CatalogEntry): ToolDefinition {
  const { readOnly, destructive, idempotent } = entry.annotations;
  const annotations = leanAnnotations({
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: idempotent,
    openWorldHint: true,
  });
  return {
    name: entry.name,
    description: entry.summary || `${entry.method} ${entry.path}`,
    inputSchema: withRevealOption(entry, listedSchema(entry.inputSchema)),
    annotations,
  };
}

/** A built-in tool as listed: its title once, and only the annotations that differ from MCP's defaults. */
export function builtinDefinition(tool: BuiltinTool): ToolDefinition {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: leanAnnotations(tool.annotations),
  };
}

/** MCP's defaults: readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true. */
function leanAnnotations(hints: ToolAnnotations): Partial<ToolAnnotations> {
  const lean: Partial<ToolAnnotations> = {};
  if (hints.readOnlyHint) lean.readOnlyHint = true;
  else if (!hints.destructiveHint) lean.destructiveHint = false;
  if (hints.idempotentHint && !hints.readOnlyHint) lean.idempotentHint = true;
  if (!hints.openWorldHint) lean.openWorldHint = false;
  return lean;
}

/** Properties every tool has (sudo: admin tokens only) stay out of the listing; calls still accept them. */
const OMITTED_PROPERTIES = new Set(['sudo']);
/** Constraints of names a model copies from Gitea's answers; enforced at the call, not worth repeating in each tool. */
const OMITTED_KEYWORDS = new Set(['pattern', 'maxLength', 'minLength', 'title', 'uniqueItems']);
/** A description that only restates the parameter's name ("owner of the repo", "page size of results"). */
const RESTATING = /^(owner|name|id|index|page number|page size|sha) of (the |a )?[\w ]*(\([^)]*\))?\.?$/i;

/** The schema as listed: see listedDefinition. Top level keeps additionalProperties: false (unknown fields are refused). */
export function listedSchema(schema: JsonSchema): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const listed = Object.fromEntries(
    Object.entries(properties)
      .filter(([name]) => !OMITTED_PROPERTIES.has(name))
      .map(([name, property]) => [
        name,
        name === 'body' ? withoutDescription(leanSchema(property)) : leanSchema(property),
      ]),
  );
  const required = ((schema.required ?? []) as string[]).filter((name) => !OMITTED_PROPERTIES.has(name));
  return {
    type: 'object',
    properties: listed,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function leanSchema(schema: JsonSchema): JsonSchema {
  const lean: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (OMITTED_KEYWORDS.has(key)) continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'description' && (typeof value !== 'string' || RESTATING.test(value.trim()))) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      lean.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, sub]) => [name, leanSchema(sub)]),
      );
    } else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) {
      lean.items = leanSchema(value as JsonSchema);
    } else {
      lean[key] = value;
    }
  }
  return lean;
}

/** A request body's own description is Gitea's Go type name ("CreateHookOption options when create a hook"). */
function withoutDescription(schema: JsonSchema): JsonSchema {
  const { description: _description, ...rest } = schema;
  return rest;
}
