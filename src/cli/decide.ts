// gitea-warden decide: one request from flags, or --batch JSON Lines on stdin (one answer line per
// request, in order). Compiled profiles are cached by path within a run.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { PolicySet } from '../config/policies.js';
import { compileInlineProfile, loadProfile } from '../config/profiles.js';
import type { Decision } from '../policy/decision.js';
import { decide, decideCall, deny, type DecideContext } from '../policy/decide.js';
import type { CompiledProfile } from '../policy/profile.js';
import { decideContextFrom, errorMessage, fail, forOutput, policyOptions, policySetFrom } from './policy-context.js';

const HELP = `usage: gitea-warden decide --profile P (--operation NAME | --operation-id ID [--args JSON]) [--service S]
       gitea-warden decide --batch < requests.jsonl

A request line: {"profile": "<path>" | {inline profile}, "operation": "<name as written>"}
            or: {"profile": ..., "operation_id": "<Gitea operationId>", "arguments": {...}}
            optional "service" (default gitea), "targets" ({"repositories","branches","paths"}: lists).
Scopes and conditions read the call's arguments; an "operation" request on a scoped profile must
state its targets ({} for none).
Each answer: {"decision", "operation", "operations", "reason", "determining", "hint", "failed"}.
Exit (single request): 0 allow, 1 deny, 2 unusable input. --batch exits 0 after answering every line.
Options: --policies DIR, --reference-profiles DIR (for hints naming which namespace holds an operation).
`;

export interface BatchRequest {
  profile: unknown;
  operation?: unknown;
  operation_id?: unknown;
  arguments?: unknown;
  service?: unknown;
  targets?: unknown;
}

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        profile: { type: 'string' },
        operation: { type: 'string' },
        'operation-id': { type: 'string' },
        args: { type: 'string' },
        service: { type: 'string' },
        batch: { type: 'boolean' },
        help: { type: 'boolean' },
        ...policyOptions,
      },
    }));
  } catch (error) {
    return fail('decide', errorMessage(error));
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  let policy: PolicySet;
  try {
    policy = policySetFrom(values);
  } catch (error) {
    return fail('decide', errorMessage(error));
  }
  const decider = new BatchDecider(policy, decideContextFrom(policy, values));
  if (values.batch) {
    await decideLines(process.stdin, (line) => process.stdout.write(`${line}\n`), decider);
    return 0;
  }
  if (!values.profile) return fail('decide', '--profile is required (or --batch)');
  let parsedArgs: unknown = {};
  try {
    parsedArgs = values.args === undefined ? {} : JSON.parse(values.args);
  } catch {
    return fail('decide', '--args is not valid JSON');
  }
  const request: BatchRequest = {
    profile: values.profile,
    ...(values.operation !== undefined ? { operation: values.operation } : {}),
    ...(values['operation-id'] !== undefined ? { operation_id: values['operation-id'], arguments: parsedArgs } : {}),
    ...(values.service !== undefined ? { service: values.service } : {}),
  };
  const decision = decider.decide(request);
  process.stdout.write(`${JSON.stringify(forOutput(decision), null, 2)}\n`);
  return decision.decision === 'allow' ? 0 : decision.reason === 'invalid_request' ? 2 : 1;
}

/** Answers requests one by one, compiling each profile path once per service. */
export class BatchDecider {
  private readonly profiles = new Map<string, CompiledProfile | Error>();

  constructor(
    private readonly policy: PolicySet,
    private readonly context: DecideContext,
  ) {}

  decide(request: BatchRequest): Decision {
    const service = request.service === undefined ? undefined : String(request.service);
    const hasOperation = typeof request.operation === 'string';
    const hasOperationId = typeof request.operation_id === 'string';
    if (hasOperation === hasOperationId) return invalid('give exactly one of "operation" or "operation_id"');
    let profile: CompiledProfile;
    try {
      profile = this.profileFor(request.profile, service);
    } catch (error) {
      return deny(null, [], 'invalid_profile', { file: typeof request.profile === 'string' ? request.profile : '<inline>', line: null, rule: errorMessage(error) }, 'fix the profile (gitea-warden check shows every problem)');
    }
    const targets = isRecord(request.targets) ? { targets: request.targets } : {};
    if (hasOperation) return decide(profile, { operations: [request.operation as string], ...(service ? { service } : {}), ...targets }, this.context);
    return decideCall(profile, { operationId: request.operation_id as string, arguments: request.arguments ?? {}, ...targets }, this.policy.operationMap, this.context);
  }

  private profileFor(reference: unknown, service: string | undefined): CompiledProfile {
    if (typeof reference !== 'string') return compileInlineProfile(reference, this.policy, service);
    const key = `${service ?? ''}\u0000${reference}`;
    let compiled = this.profiles.get(key);
    if (!compiled) {
      try {
        compiled = loadProfile(reference, this.policy, service);
      } catch (error) {
        compiled = error instanceof Error ? error : new Error('cannot load profile');
      }
      this.profiles.set(key, compiled);
    }
    if (compiled instanceof Error) throw compiled;
    return compiled;
  }
}

/** Reads JSON Lines and writes one answer line per non-blank line, in order; a bad line gets invalid_request. */
export async function decideLines(input: NodeJS.ReadableStream, write: (line: string) => void, decider: BatchDecider): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    write(JSON.stringify(forOutput(answer(line, decider))));
  }
}

function answer(line: string, decider: BatchDecider): Decision {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return invalid('line is not valid JSON');
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request) || !('profile' in request)) {
    return invalid('a request is an object with "profile" and "operation" or "operation_id"');
  }
  return decider.decide(request as BatchRequest);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function invalid(message: string): Decision {
  return deny(null, [], 'invalid_request', { file: '<request>', line: null, rule: message }, message);
}
