// Whether a JSONPath of a policy can ever find something in an operation's input (its JSON Schema):
// a path the schema cannot hold is a policy error caught when policies load, not a silent no-match.
import { JSONPath } from 'jsonpath-plus';

type Schema = { [key: string]: unknown };

/** Why the JSONPath is not usable on inputs of this schema, or null. Only $, names, [n] and [*] steps. */
export function jsonPathProblem(path: string, schema: Schema): string | null {
  if (/\.\.|\?\(|\(|@/.test(path))
    return 'uses a filter, script or recursive descent (only $, .name, [n] and [*] are supported)';
  let steps: string[];
  try {
    steps = (JSONPath.toPathArray(path) as string[]).slice(1);
  } catch {
    return 'is not a valid JSONPath';
  }
  let current: Schema[] = [schema];
  for (const step of steps) {
    current = current.flatMap((node) => childSchemas(node, step));
    if (current.length === 0) return `cannot exist in the input schema (no '${step}')`;
  }
  return null;
}

function childSchemas(node: Schema, step: string): Schema[] {
  const variants = [
    node,
    ...(['anyOf', 'oneOf', 'allOf'] as const).flatMap((key) =>
      Array.isArray(node[key]) ? (node[key] as Schema[]) : [],
    ),
  ];
  return variants.flatMap((variant) => {
    const properties = (variant.properties ?? {}) as Record<string, Schema>;
    if (step === '*') return [...Object.values(properties), ...(isSchema(variant.items) ? [variant.items] : [])];
    if (/^\d+$/.test(step)) return isSchema(variant.items) ? [variant.items] : [];
    if (properties[step]) return [properties[step]];
    return isSchema(variant.additionalProperties) ? [variant.additionalProperties] : [];
  });
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
