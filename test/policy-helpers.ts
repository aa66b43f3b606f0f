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

/** Runs a command's run(argv) with stdout/stderr captured. */
export async function capture(run: (argv: string[]) => Promise<number>, argv: string[]): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => (out.push(String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await run(argv);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}
