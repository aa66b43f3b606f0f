// The small matcher that interprets operation-map rules against tool arguments. Arguments are shaped
// like the tool input: path and query parameters top level, the JSON body under `body`.

export type Scalar = string | number | boolean;

/** `{ path: body.state, equals: closed }` or `{ path: sudo, present: true }`. */
export interface ArgumentCondition {
  path: string;
  equals?: Scalar;
  present?: boolean;
}

/** The value at a dotted path, or undefined when any step is missing. */
export function valueAt(args: unknown, path: string): unknown {
  let current: unknown = args;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function matches(condition: ArgumentCondition, args: unknown): boolean {
  const value = valueAt(args, condition.path);
  if (condition.present !== undefined) return (value !== undefined) === condition.present;
  return value === condition.equals;
}
