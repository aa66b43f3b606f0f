// ajv's errors as the mistakes a person made: one problem per mistake, with the keyword that failed,
// the document path and the fields involved, worded here from the keyword and its parameters. Only
// what every build of ajv reports is read (keyword, instancePath, schemaPath, params), never its
// `verbose` extras, so the command built with precompiled validators words each mistake exactly as
// the sources do. A failed oneOf/anyOf is one mistake: the alternative the value was meant to be
// (its type fits) speaks for it, or, when none fits, one problem names the forms that would.
import type { ErrorObject } from 'ajv';

export type PathSegment = string | number;

export interface SchemaProblem {
  /** Where in the document, e.g. ['repositories'] or ['allowed_operations', 2]. */
  path: PathSegment[];
  /** The JSON Schema keyword that failed: type, required, additionalProperties, oneOf, enum, pattern, ... */
  keyword: string;
  /** The fields involved: the missing or unknown one, or the fields of which exactly one is needed. */
  fields: string[];
  /** For a person; never the value itself. */
  message: string;
}

type Schema = { [key: string]: unknown };

/** An error, or a problem already made of a combinator's errors, with where it came from. */
interface Item {
  path: PathSegment[];
  schemaPath: string;
  error?: ErrorObject;
  problems?: SchemaProblem[];
}

/**
 * The problems of ajv's error list for `data` validated against `root` (and the schemas it refers to,
 * `others`: an error inside a referenced schema has a schema path relative to that schema).
 */
export function schemaProblems(
  errors: readonly ErrorObject[],
  data: unknown,
  root: object,
  others: readonly object[] = [],
): SchemaProblem[] {
  const schemas = [root, ...others] as Schema[];
  // An error inside propertyNames is repeated by the propertyNames error itself, which names the field.
  const own = errors.filter((error) => (error as { propertyName?: string }).propertyName === undefined);
  let items: Item[] = own.map((error) => ({ path: pathOf(error), schemaPath: error.schemaPath, error }));
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Item;
    const keyword = item.error?.keyword;
    if (keyword !== 'oneOf' && keyword !== 'anyOf') continue;
    const found = resolve(schemas, item.schemaPath);
    if (!found || !Array.isArray(found.node)) continue;
    const alternatives = found.node as Schema[];
    let start = i;
    const members: Array<{ item: Item; of: number[] }> = [];
    while (start > 0) {
      const candidate = items[start - 1] as Item;
      const of = alternativesOf(candidate, item, alternatives, found.doc);
      if (of.length === 0) break;
      members.unshift({ item: candidate, of });
      start--;
    }
    const problems = combinatorProblems(item, alternatives, found.doc, members, valueAt(data, item.path));
    items = [
      ...items.slice(0, start),
      { path: item.path, schemaPath: item.schemaPath, problems },
      ...items.slice(i + 1),
    ];
    i = start;
  }
  const all = items.flatMap((item) => item.problems ?? (item.error ? [problemOf(item.error)] : []));
  const seen = new Set<string>();
  return all.filter((problem) => {
    const key = JSON.stringify([problem.path, problem.keyword, problem.fields]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The instance path of an error; for an unknown field, down to that field. */
function pathOf(error: ErrorObject): PathSegment[] {
  const segments: PathSegment[] = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  if (error.keyword === 'additionalProperties')
    segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
  if (error.keyword === 'propertyNames') segments.push(String((error.params as { propertyName: string }).propertyName));
  return segments;
}

function under(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  return prefix.every((segment, i) => path[i] === segment) && path.length >= prefix.length;
}

/** The node a schema path names, in the first of the schemas that has it. */
function resolve(schemas: readonly Schema[], schemaPath: string): { node: unknown; doc: Schema } | null {
  const pointer = schemaPath.slice(schemaPath.indexOf('#') + 1);
  for (const doc of schemas) {
    const node = pointerValue(doc, pointer);
    if (node !== undefined) return { node, doc };
  }
  return null;
}

function pointerValue(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Schema)[key] : undefined), doc);
}

/** A local $ref followed once (#/definitions/x), or the node itself. */
function deref(node: unknown, doc: Schema): Schema | null {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return null;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string' && ref.startsWith('#')) return deref(pointerValue(doc, ref.slice(1)), doc);
  return node as Schema;
}

/** The schema node an alternative applies at `rest` below its own instance, following properties, items and refs. */
function nodeAt(alternative: Schema, rest: readonly PathSegment[], doc: Schema): Schema | null {
  let node: unknown = alternative;
  for (const segment of rest) {
    const schema = deref(node, doc);
    if (!schema) return null;
    const properties = schema.properties as Schema | undefined;
    if (typeof segment === 'number') node = schema.items;
    else
      node =
        properties?.[segment] ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (node === undefined) return null;
  }
  return node as Schema;
}

/**
 * The alternatives of a combinator (at `combinator.schemaPath`) an earlier item belongs to: by its
 * schema path inside an alternative, or, for one reported inside a referenced definition, by the
 * alternative applying exactly that definition at the item's instance path.
 */
function alternativesOf(candidate: Item, combinator: Item, alternatives: Schema[], doc: Schema): number[] {
  if (!under(candidate.path, combinator.path)) return [];
  const prefix = `${combinator.schemaPath}/`;
  if (candidate.schemaPath.startsWith(prefix)) {
    const index = Number(candidate.schemaPath.slice(prefix.length).split('/')[0]);
    return Number.isInteger(index) ? [index] : [];
  }
  const definition = /^(?:[^#]*)#(\/definitions\/[^/]+)(?:\/|$)/.exec(candidate.schemaPath)?.[1];
  if (!definition) return [];
  const rest = candidate.path.slice(combinator.path.length);
  const within = candidate.error?.keyword === 'additionalProperties' ? rest.slice(0, -1) : rest;
  const applied = pointerValue(doc, definition) as Schema | undefined;
  // The alternative applies that very definition somewhere on the way to the instance, and the
  // definition itself reaches the rest of the way.
  return alternatives.flatMap((alternative, index) => {
    for (let k = 0; k <= within.length; k++) {
      const node = nodeAt(alternative, within.slice(0, k), doc);
      if (node?.$ref === `#${definition}` && applied && nodeAt(applied, within.slice(k), doc)) return [index];
    }
    return [];
  });
}

/** One combinator that failed, as the problems of the mistake made. */
function combinatorProblems(
  combinator: Item,
  alternatives: Schema[],
  doc: Schema,
  members: Array<{ item: Item; of: number[] }>,
  value: unknown,
): SchemaProblem[] {
  const exclusive = alternatives.map((a) =>
    Array.isArray(a.required) && a.required.length === 1 && Object.keys(a).length === 1 ? String(a.required[0]) : null,
  );
  if (exclusive.every((field): field is string => field !== null)) {
    const set = exclusive.filter((field) => isRecord(value) && field in value);
    return [
      {
        path: combinator.path,
        keyword: combinator.error?.keyword ?? 'oneOf',
        fields: exclusive,
        message:
          set.length > 1
            ? `sets more than one of the fields ${exclusive.join(', ')}; keep one`
            : `needs exactly one of the fields ${exclusive.join(', ')}`,
      },
    ];
  }
  const fitting = alternatives
    .map((alternative, index) => ({ index, type: typeOf(alternative, doc) }))
    .filter(({ type }) => type === null || typeFits(type, value));
  if (fitting.length === 0) {
    const forms = alternatives.map((alternative) => formOf(alternative, doc));
    return [
      {
        path: combinator.path,
        keyword: 'type',
        fields: [],
        message: `must be ${[...new Set(forms)].join(' or ')}`,
      },
    ];
  }
  const errorsOf = (index: number) => members.filter((m) => m.of.includes(index)).map((m) => m.item);
  const [best] = [...fitting].sort((a, b) => errorsOf(a.index).length - errorsOf(b.index).length);
  const chosen = errorsOf(best?.index ?? 0);
  if (chosen.length === 0) {
    const passing = (combinator.error?.params as { passingSchemas?: unknown } | undefined)?.passingSchemas;
    const message = Array.isArray(passing) ? 'matches more than one allowed form' : 'matches none of the allowed forms';
    return [{ path: combinator.path, keyword: combinator.error?.keyword ?? 'oneOf', fields: [], message }];
  }
  return chosen.flatMap((item) => item.problems ?? (item.error ? [problemOf(item.error)] : []));
}

type JsonType = 'array' | 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

function typeOf(alternative: Schema, doc: Schema): JsonType[] | null {
  const schema = deref(alternative, doc);
  const type = schema?.type;
  if (typeof type === 'string') return [type as JsonType];
  if (Array.isArray(type)) return type as JsonType[];
  if (schema && 'const' in schema) return [jsonType(schema.const)];
  if (schema && Array.isArray(schema.enum)) return [...new Set((schema.enum as unknown[]).map(jsonType))];
  return null;
}

function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

function typeFits(types: JsonType[], value: unknown): boolean {
  const actual = jsonType(value);
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

const TYPE_WORDS: Record<JsonType, string> = {
  array: 'a list',
  object: 'an object',
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  null: 'null',
};

/** How a person would name the form an alternative accepts. */
function formOf(alternative: Schema, doc: Schema): string {
  const schema = deref(alternative, doc);
  if (schema && 'const' in schema) return JSON.stringify(schema.const);
  const types = typeOf(alternative, doc) ?? [];
  const words = types.map((t) => TYPE_WORDS[t]).join(' or ') || 'another form';
  const properties = schema?.properties as Schema | undefined;
  return types.includes('object') && properties ? `${words} (fields: ${Object.keys(properties).join(', ')})` : words;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  return path.reduce<unknown>(
    (at, key) => (at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[key] : undefined),
    data,
  );
}

/** One error as a problem, worded from its keyword and parameters (never ajv's message, never the value). */
function problemOf(error: ErrorObject): SchemaProblem {
  const path = pathOf(error);
  const params = error.params as Record<string, unknown>;
  const of = (message: string, fields: string[] = []): SchemaProblem => ({
    path,
    keyword: error.keyword,
    fields,
    message,
  });
  switch (error.keyword) {
    case 'additionalProperties':
      return of('unknown field', [String(params.additionalProperty)]);
    case 'required':
      return of(`missing required field '${String(params.missingProperty)}'`, [String(params.missingProperty)]);
    case 'type': {
      const types = String(params.type).split(',') as JsonType[];
      return of(`must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`);
    }
    case 'enum':
      return of(`must be one of: ${((params.allowedValues as unknown[]) ?? []).join(', ')}`);
    case 'const':
      return of(`must be ${JSON.stringify(params.allowedValue)}`);
    case 'pattern':
      return of(`does not match the pattern ${String(params.pattern)}`);
    case 'format':
      return of(`is not a valid ${String(params.format)}`);
    case 'minItems':
      return of(`needs at least ${String(params.limit)} item(s)`);
    case 'maxItems':
      return of(`takes at most ${String(params.limit)} item(s)`);
    case 'minLength':
      return of(params.limit === 1 ? 'must not be empty' : `needs at least ${String(params.limit)} characters`);
    case 'maxLength':
      return of(`takes at most ${String(params.limit)} characters`);
    case 'minProperties':
      return of(`needs at least ${String(params.limit)} field(s)`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return of(`must be ${String(params.comparison)} ${String(params.limit)}`);
    case 'uniqueItems':
      return of(`lists the same item twice (items ${String(params.j)} and ${String(params.i)})`);
    case 'propertyNames':
      return of('is not a valid field name here', [String(params.propertyName)]);
    case 'oneOf':
    case 'anyOf':
      return of('matches none of the allowed forms');
    default:
      return of(`fails ${error.keyword}`);
  }
}
