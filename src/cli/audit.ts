// `gitea-warden audit verify FILE`: checks a hash-chained audit log and names the first broken line;
// with --public-key it checks the signed checkpoints as well. `audit keygen` makes the key pair.
import { generateKeyPairSync } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { publicKeyFromPem, SigningKeyError } from '../audit/checkpoint.js';
import { checkpointPathOf } from '../audit/log.js';
import { describeDatabase, isDatabaseUrl } from '../audit/database-url.js';
import { verifyAuditLog, type AuditVerification, type SignedVerifyOptions } from '../audit/verify.js';
import { HighWaterMark, highWaterDirOf } from '../audit/high-water.js';

const usage = `usage: gitea-warden audit verify FILE|postgres://... [--chain NAME] [--public-key PEM] [--checkpoint-file FILE]
                            [--allow-unsigned-tail]
       gitea-warden audit keygen --private-key OUT --public-key OUT
       gitea-warden audit new-log FILE --signing-key KEY
       gitea-warden audit init-db postgres://OWNER@HOST/DB --namespace NAME [--namespace NAME ...] [--print-sql]

verify: checks the hash chain of an audit log (JSON Lines), or of one chain of the PostgreSQL table
  (AUDIT_SINK; --chain names the profile when the table holds several).
  --public-key PEM       also check the signed checkpoints (AUDIT_SIGNING_KEY_FILE's public half):
                         every signature, that a checkpoint covers the whole log, and the checkpoint
                         file (default FILE.checkpoint) that shows a log cut back or replaced
  --allow-unsigned-tail  accept lines after the last checkpoint (a log whose server still runs)
  Prints "ok: ..." (exit 0), or the first broken line and why (exit 1).
  Exit 2 when a file cannot be read or the command line is wrong.

keygen: writes a new Ed25519 key pair (PEM): the private key (mode 0600) for AUDIT_SIGNING_KEY_FILE,
  readable by the server's user only, and the public key for verify.

new-log: lets the next start of a signing server begin a new log at FILE, whose earlier chain the
  high-water mark beside KEY (AUDIT_SIGNING_KEY_FILE) records: without it the server refuses to start
  a fresh log where one existed. Needs write access to KEY's directory (run it as the user that owns
  the key); FILE and FILE.checkpoint must have been moved aside (keep them as evidence).

init-db: sets up the PostgreSQL audit sink as the database's owner: the tables, one role per
  namespace (its chain's name, the profile) that may add and read rows of its own chain only, and
  their grants; run it again to add namespaces (nothing existing changes). Prints what it did and,
  for each new role, the AUDIT_SINK URL with its generated password. --print-sql prints the SQL for
  applying by hand instead, and connects to nothing.
`;

const options = {
  help: { type: 'boolean', short: 'h' },
  'public-key': { type: 'string' },
  'private-key': { type: 'string' },
  'checkpoint-file': { type: 'string' },
  chain: { type: 'string' },
  'allow-unsigned-tail': { type: 'boolean' },
  'signing-key': { type: 'string' },
  namespace: { type: 'string', multiple: true },
  'print-sql': { type: 'boolean' },
} as const;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`gitea-warden audit: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const [subcommand, file, ...extra] = positionals;
  if (subcommand === 'keygen' && file === undefined && values['private-key'] && values['public-key']) {
    return keygen(values['private-key'], values['public-key']);
  }
  if (subcommand === 'new-log' && file !== undefined && extra.length === 0 && values['signing-key']) {
    return newLog(file, values['signing-key']);
  }
  if (subcommand === 'init-db' && file !== undefined && extra.length === 0) {
    const { initDatabase } = await import('./audit-init-db.js');
    return initDatabase(file, values.namespace ?? [], values['print-sql'] ?? false);
  }
  if (subcommand !== 'verify' || file === undefined || extra.length > 0 || values['private-key'] !== undefined) {
    process.stderr.write(usage);
    return 2;
  }
  const allowUnsignedTail = values['allow-unsigned-tail'] ?? false;
  if (isDatabaseUrl(file)) return verifyTable(file, values.chain, values['public-key'], allowUnsignedTail);
  return verifyFile(file, values['public-key'], values['checkpoint-file'], allowUnsignedTail);
}

async function verifyFile(
  file: string,
  publicKeyFile: string | undefined,
  checkpointFile: string | undefined,
  allowUnsignedTail: boolean,
): Promise<number> {
  const text = await readOrReport(file);
  if (text === null) return 2;
  const signing = publicKeyFile === undefined ? undefined : await signingOptions(publicKeyFile, allowUnsignedTail);
  if (signing === null) return 2;
  // A missing checkpoint file is a finding (exit 1), not a usage error.
  if (signing)
    signing.checkpointCopy = await readFile(checkpointFile ?? checkpointPathOf(file), 'utf8').catch(() => null);
  return report(verifyAuditLog(text, signing));
}

/**
 * A chain in the table. Its rows cannot be deleted or changed by the server's role, so the table is
 * its own second place: its last checkpoint stands in for the checkpoint file.
 */
async function verifyTable(
  url: string,
  chain: string | undefined,
  publicKeyFile: string | undefined,
  allowUnsignedTail: boolean,
): Promise<number> {
  const signing = publicKeyFile === undefined ? undefined : await signingOptions(publicKeyFile, allowUnsignedTail);
  if (signing === null) return 2;
  let read;
  try {
    const { readChainText } = await import('../audit/postgres-log.js');
    read = await readChainText(url, chain);
  } catch (error) {
    const why =
      error instanceof Error && !('code' in error)
        ? error.message
        : `cannot read the audit table (${String((error as { code?: unknown }).code ?? 'error')})`;
    process.stderr.write(`gitea-warden audit: ${describeDatabase(url)}: ${why}\n`);
    return 2;
  }
  if (signing) signing.checkpointCopy = read.lastCheckpoint;
  process.stdout.write(`chain ${read.chain} in ${describeDatabase(url)}\n`);
  return report(verifyAuditLog(read.text, signing));
}

/** The public key's options, or null (reported) when the key cannot be used. */
async function signingOptions(publicKeyFile: string, allowUnsignedTail: boolean): Promise<SignedVerifyOptions | null> {
  const pem = await readOrReport(publicKeyFile);
  if (pem === null) return null;
  try {
    return { publicKey: publicKeyFromPem(pem, publicKeyFile), checkpointCopy: null, allowUnsignedTail };
  } catch (error) {
    if (!(error instanceof SigningKeyError)) throw error;
    process.stderr.write(`gitea-warden audit: ${error.message}\n`);
    return null;
  }
}

export function report(result: AuditVerification): number {
  const signed = result.signed
    ? `, ${result.signed.checkpoints} signed checkpoints cover lines 1 to ${result.signed.through}`
    : '';
  if (result.ok) {
    process.stdout.write(`ok: ${result.events} events, chain intact${signed}\n`);
    return 0;
  }
  const broken = result.firstBroken;
  process.stdout.write(`broken: line ${broken?.line}: ${broken?.reason} (${result.events} events before it verify)\n`);
  return 1;
}

async function readOrReport(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'EIO';
    process.stderr.write(`gitea-warden audit: cannot read ${file} (${code})\n`);
    return null;
  }
}

async function keygen(privatePath: string, publicPath: string): Promise<number> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  try {
    // 'wx': never overwrite a key that may be signing a log already.
    await writeFile(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    await writeFile(publicPath, publicKey.export({ type: 'spki', format: 'pem' }), { flag: 'wx' });
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'EIO';
    process.stderr.write(
      `gitea-warden audit: cannot write the key files (${code}); existing files are never overwritten\n`,
    );
    return 2;
  }
  process.stdout.write(
    `wrote ${privatePath} (private, mode 0600: AUDIT_SIGNING_KEY_FILE) and ${publicPath} (public: audit verify --public-key)\n`,
  );
  return 0;
}

/** Retires the high-water mark of FILE beside the key, so that the next start may begin a new log there. */
async function newLog(file: string, signingKeyFile: string): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`gitea-warden audit new-log: ${message}\n`);
    return 2;
  };
  if (!(await exists(signingKeyFile))) return fail(`${signingKeyFile} does not exist: give the signing key's path`);
  for (const path of [file, checkpointPathOf(file)]) {
    if (await exists(path))
      return fail(`${path} still exists: move it aside first (keep it as evidence), then run this again`);
  }
  const mark = new HighWaterMark(highWaterDirOf(signingKeyFile), file);
  let record;
  try {
    record = await mark.read();
  } catch (error) {
    return fail(`cannot read ${mark.file} (${(error as { code?: string }).code ?? 'EIO'})`);
  }
  if (record === null || record.retired) {
    process.stdout.write(`no high-water mark holds a chain for ${file}: a new log may start there already\n`);
    return 0;
  }
  try {
    await mark.write({
      chain: record.chain,
      seq: record.seq,
      head: record.head,
      retired: { time: new Date().toISOString() },
    });
  } catch (error) {
    return fail(
      `cannot write ${mark.file} (${(error as { code?: string }).code ?? 'EIO'}): run this as the user that owns the key's directory`,
    );
  }
  process.stdout.write(
    `retired the high-water mark ${mark.file}: chain ${record.chain.slice(0, 16)}, signed through line ${record.seq}; ` +
      `the next start of a server with AUDIT_LOG=${file} begins a new log\n`,
  );
  return 0;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
}
