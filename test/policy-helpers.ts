// Shared by the policy tests: the loaded policy set, compiling inline profiles, and capturing what a
// CLI command prints.
import { loadPolicySet } from '../src/policy-files/policy-set.js';
import { compileProfile, type CompiledProfile, type ProfileData } from '../src/policy/profile.js';

export const policy = loadPolicySet();

export function inline(data: ProfileData, service?: string): CompiledProfile {
  return compileProfile({ data, file: '<inline>' }, policy.vocabulary, service);
}

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command's run(argv) with stdout/stderr captured. Only text is captured: the test runner
 * reports each finished test to its parent as v8-serialized Buffers on this same stdout, and a report
 * flushed while a command runs must reach the runner, or that test silently drops out of the count.
 */
export async function capture(run: (argv: string[]) => Promise<number>, argv: string[]): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  const textOnly = (sink: string[], write: typeof process.stdout.write) =>
    ((chunk: string | Uint8Array, ...rest: never[]) =>
      typeof chunk === 'string' ? (sink.push(chunk), true) : write(chunk, ...rest)) as typeof process.stdout.write;
  process.stdout.write = textOnly(out, stdoutWrite);
  process.stderr.write = textOnly(err, stderrWrite);
  try {
    const code = await run(argv);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}
