// Turns Swagger 2.0 schema fragments into self-contained JSON Schema (draft-07) that ajv compiles:
// every $ref inlined, recursion cut, x-nullable converted, swagger-only keys dropped.
import type { JsonSchema } from './types.js';

export type Definitions = Record<string, JsonSchema>;

/** Keywords kept as-is; everything else (x-*, example, discriminator, readOnly, xml, ...) is dropped. */
const KEPT_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'default',
  'enum',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
]);
/** Formats ajv-formats knows; any other (uint64, ...) is dropped so ajv never meets an unknown format. */
const KNOWN_FORMATS = new Set([
  'date-time',
  'date',
  'time',
  'email',
  'uri',
  'uuid',
  'int32',
  'int64',
  'float',
  'double',
  'byte',
  'binary',
  'password',
]);

const REF_PREFIX = '#/definitions/';

/** A swagger schema (or parameter's type fields) as plain JSON Schema, `$ref`s resolved. */
export function toJsonSchema(node: JsonSchema, definitions: Definitions, seen: readonly string[] = []): JsonSchema {
  const ref = node.$ref;
  if (typeof ref === 'string') return resolveRef(ref, definitions, seen);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (KEPT_KEYWORDS.has(key)) out[key] = value;
  }
  // A swagger parameter's `required` is a boolean about the parameter, not the schema's list.
  if (!Array.isArray(node.required)) delete out.required;
  convertFormat(node, out);
  convertExclusiveBounds(node, out);
  if (node.type === 'file') {
    out.type = 'string';
    out.contentEncoding = 'base64';
  }
  if (isSchema(node.items)) out.items = toJsonSchema(node.items, definitions, seen);
  if (isSchema(node.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([name, prop]) => [
        name,
        toJsonSchema(prop as JsonSchema, definitions, seen),
      ]),
    );
  }
  if (isSchema(node.additionalProperties))
    out.additionalProperties = toJsonSchema(node.additionalProperties, definitions, seen);
  else if (typeof node.additionalProperties === 'boolean') out.additionalProperties = node.additionalProperties;
  // Gitea decodes JSON keys case-insensitively: an undeclared `FORCE_MERGE` would reach Gitea as
  // force_merge while the policy rules read `force_merge`. Objects with declared fields are closed.
  else if (isSchema(node.properties)) out.additionalProperties = false;
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    const parts = node[combinator];
    if (Array.isArray(parts))
      out[combinator] = parts.map((part) => toJsonSchema(part as JsonSchema, definitions, seen));
  }
  return node['x-nullable'] === true ? nullable(out) : out;
}

function resolveRef(ref: string, definitions: Definitions, seen: readonly string[]): JsonSchema {
  if (!ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${ref}: only ${REF_PREFIX}* is resolved`);
  const name = ref.slice(REF_PREFIX.length);
  const target = definitions[name];
  if (!target) throw new Error(`unresolved $ref ${ref}`);
  // A definition that contains itself (Repository.parent, ...) is cut to a permissive object.
  if (seen.includes(name)) return { type: 'object', description: `${name} (nested; not expanded)` };
  return toJsonSchema(target, definitions, [...seen, name]);
}

function convertFormat(node: JsonSchema, out: JsonSchema): void {
  if (typeof node.format !== 'string' || KNOWN_FORMATS.has(node.format)) return;
  delete out.format;
  if (node.format.startsWith('uint')) out.minimum = 0;
}

/** Swagger 2.0 writes exclusive bounds as booleans beside minimum/maximum; draft-07 wants the number. */
function convertExclusiveBounds(node: JsonSchema, out: JsonSchema): void {
  if (node.exclusiveMinimum === true && typeof node.minimum === 'number') {
    out.exclusiveMinimum = node.minimum;
    delete out.minimum;
  }
  if (node.exclusiveMaximum === true && typeof node.maximum === 'number') {
    out.exclusiveMaximum = node.maximum;
    delete out.maximum;
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `$ref` appears anywhere in the value (the MCP client rejects unresolved refs). */
export function containsRef(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsRef);
  if (!isSchema(value)) return false;
  return Object.entries(value).some(([key, child]) => key === '$ref' || containsRef(child));
}
