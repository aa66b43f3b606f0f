// `gitea-warden audit verify FILE`: checks a hash-chained audit log and names the first broken line.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { verifyAuditLog } from '../audit/verify.js';

const usage = `usage: gitea-warden audit verify FILE

Verifies the hash chain of an audit log (JSON Lines).
Prints "ok: N events, chain intact" (exit 0), or the first broken line and why (exit 1).
Exit 2 when the file cannot be read or the command line is wrong.
`;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`gitea-warden audit: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const [subcommand, file, ...extra] = parsed.positionals;
  if (subcommand !== 'verify' || file === undefined || extra.length > 0) {
    process.stderr.write(usage);
    return 2;
  }
  return verifyFile(file);
}

async function verifyFile(file: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'EIO';
    process.stderr.write(`gitea-warden audit: cannot read ${file} (${code})\n`);
    return 2;
  }
  const result = verifyAuditLog(text);
  if (result.ok) {
    process.stdout.write(`ok: ${result.events} events, chain intact\n`);
    return 0;
  }
  const broken = result.firstBroken;
  process.stdout.write(
    `broken: line ${broken?.line}: ${broken?.reason} (${result.events} events before it verify)\n`,
  );
  return 1;
}
