// gitea-warden decide: one request from flags, or --batch JSON Lines on stdin (one answer line per
// request, in order). Compiled profiles are cached by path within a run.
import { StringDecoder } from 'node:string_decoder';
import { parseArgs } from 'node:util';
import type { PolicySet } from '../policy-files/policy-set.js';
import { compileInlineProfile, loadProfile } from '../policy-files/profile-files.js';
import type { Decision } from '../policy/decision.js';
import { decide, decideCall, deny, type DecideContext } from '../policy/decide.js';
import type { CompiledProfile } from '../policy/profile.js';
import { decideContextFrom, errorMessage, fail, forOutput, policyOptions, policySetFrom } from './policy-context.js';

const HELP = `usage: gitea-warden decide --profile P (--operation NAME | --operation-id ID [--args JSON]) [--service S]
       gitea-warden decide --batch < requests.jsonl

P (and "profile") is a profile name (gitea-reviewer: profiles/gitea-reviewer.yaml), a profile file,
or a multi-identity config as FILE#name.
A request line: {"profile": "<path>" | {inline profile}, "operation": "<name as written>"}
            or: {"profile": ..., "operation_id": "<Gitea operationId>", "arguments": {...}}
            optional "service" (default gitea), "targets" ({"repositories","branches","paths"}: lists).
Scopes and conditions read the call's arguments; an "operation" request on a scoped profile must
state its targets ({} for none).
Each answer: {"effect", "operation", "operations", "reason", "determining", "hint", "failed"}.
Exit (single request): 0 allow, 1 deny, 2 unusable input. --batch exits 0 after answering every line:
a line that is not a request (not JSON, not an object, malformed targets, longer than 1 MiB) is
answered with reason invalid_request and the hint says why; the next line is read.
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
  return decision.effect === 'allow' ? 0 : decision.reason === 'invalid_request' ? 2 : 1;
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
      return deny(
        null,
        [],
        'invalid_profile',
        {
          file: typeof request.profile === 'string' ? request.profile : '<inline>',
          line: null,
          rule: errorMessage(error),
        },
        'fix the profile (gitea-warden check shows every problem)',
      );
    }
    if (request.targets !== undefined && !isTargets(request.targets))
      return invalid('"targets" is an object whose "repositories", "branches" and "paths" are lists of strings');
    const targets = request.targets !== undefined ? { targets: request.targets } : {};
    if (hasOperation)
      return decide(
        profile,
        { operations: [request.operation as string], ...(service ? { service } : {}), ...targets },
        this.context,
      );
    return decideCall(
      profile,
      { operationId: request.operation_id as string, arguments: request.arguments ?? {}, ...targets },
      this.policy.operationMap,
      this.context,
    );
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

/** The longest request line read (an inline profile fits easily); a longer one is answered invalid_request unread. */
export const MAX_REQUEST_LINE_CHARS = 1 << 20;

/** Reads JSON Lines and writes one answer line per non-blank line, in order; a bad line gets invalid_request. */
export async function decideLines(
  input: AsyncIterable<string | Buffer>,
  write: (line: string) => void,
  decider: BatchDecider,
): Promise<void> {
  for await (const line of boundedLines(input, MAX_REQUEST_LINE_CHARS)) {
    if (line === null)
      write(
        JSON.stringify(
          invalid(
            `line is longer than ${MAX_REQUEST_LINE_CHARS} characters; split the request or name the profile by path`,
          ),
        ),
      );
    else if (line.trim() !== '') write(JSON.stringify(forOutput(answer(line, decider))));
  }
}

/** Lines of the input; a line over `max` characters is skipped to its end, never held, and yields null. */
async function* boundedLines(input: AsyncIterable<string | Buffer>, max: number): AsyncGenerator<string | null> {
  const decoder = new StringDecoder('utf8');
  let line = '';
  let tooLong = false;
  const take = (piece: string): void => {
    if (tooLong) return;
    line += piece;
    if (line.length > max) [line, tooLong] = ['', true];
  };
  for await (const chunk of input) {
    const pieces = (typeof chunk === 'string' ? chunk : decoder.write(chunk)).split('\n');
    for (const [index, piece] of pieces.entries()) {
      take(piece);
      if (index === pieces.length - 1) break;
      yield tooLong ? null : line.replace(/\r$/, '');
      [line, tooLong] = ['', false];
    }
  }
  take(decoder.end());
  if (tooLong || line !== '') yield tooLong ? null : line.replace(/\r$/, '');
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
  try {
    return decider.decide(request as BatchRequest);
  } catch (error) {
    // One request that breaks something must not end the batch: it is refused, the next line is read.
    return invalid(`this request could not be decided: ${errorMessage(error)}`);
  }
}

const TARGET_KINDS = ['repositories', 'branches', 'paths'];

/** Stated targets must be well formed: a kind the policy cannot read would otherwise count as "none". */
function isTargets(value: unknown): value is Record<string, string[]> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.entries(value).every(
      ([kind, list]) =>
        TARGET_KINDS.includes(kind) && Array.isArray(list) && list.every((item) => typeof item === 'string'),
    )
  );
}

function invalid(message: string): Decision {
  return deny(null, [], 'invalid_request', { file: '<request>', line: null, rule: message }, message);
}
