// The validate stage of a call: the arguments against the tool's input schema (ajv, compiled once).
// Errors name JSON paths and messages, never the offending value.
import type { JsonSchema } from '../../catalog/types.js';
import { validationErrors } from '../../shared/document.js';
import type { CallRecord } from './call-audit.js';
import { errorRecord, type Outcome } from './outcome.js';
import { toolResult } from './tool-result.js';

/** Schema errors as JSON paths and messages; never the offending value. */
export function invalidArguments(schema: JsonSchema, args: unknown, target: CallRecord['target']): Outcome | null {
  const errors = validationErrors(schema, args).map(({ path, message }) => ({ path, message }));
  if (errors.length === 0) return null;
  const result = toolResult(
    {
      error: { kind: 'invalid_arguments', message: 'The arguments do not match the tool input schema.', errors },
      request: null,
    },
    true,
  );
  return { result, record: errorRecord('invalid_arguments', target) };
}

export function invalidShape(args: unknown): Outcome {
  const errors = [{ path: '/', message: `must be object, not ${Array.isArray(args) ? 'array' : typeof args}` }];
  return {
    result: toolResult(
      { error: { kind: 'invalid_arguments', message: 'The arguments must be an object.', errors }, request: null },
      true,
    ),
    record: errorRecord('invalid_arguments', null),
  };
}
