// `gitea-warden sandbox [--port N] [--seed FILE]`: serves the stand-in Gitea on 127.0.0.1, prints
// one JSON line {url, users: {login: {token, password}}} on stdout, then logs each request to
// stderr (method, path, status, login; never a credential) until SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { readDocument, validateDocument } from '../shared/document.js';
import { seedSchema } from '../sandbox/seed-schema.js';
import type { SandboxSeed } from '../sandbox/seed.js';
import { startSandbox } from '../sandbox/server.js';

const usage = `usage: gitea-warden sandbox [--port N] [--seed FILE]

Serves a stateful, in-memory stand-in Gitea (API below /api/v1) on 127.0.0.1.
Prints one JSON line first: {"url": ..., "users": {"<login>": {"token": ..., "password": ...}}}
(passwords are for BASIC authentication, which Gitea requires to create access tokens),
then logs requests to stderr until interrupted.

options:
  --port N     port to listen on (default: any free port)
  --seed FILE  JSON or YAML world to start with, shaped like the default seed
  --help       show this help
`;

function readSeed(file: string): SandboxSeed {
  const doc = readDocument(file);
  const findings = validateDocument(doc, seedSchema);
  if (findings.length > 0) {
    const lines = findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ''} ${f.path}: ${f.message}`);
    throw new Error(`seed file is not valid:\n${lines.join('\n')}`);
  }
  return doc.data as SandboxSeed;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be an integer from 0 to 65535');
  return port;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const port = parsePort(values.port);
  const seed = values.seed === undefined ? undefined : readSeed(values.seed);
  const sandbox = await startSandbox({
    port,
    ...(seed ? { seed } : {}),
    onResponse: (e) => process.stderr.write(`${e.method} ${e.path} ${e.status} ${e.login ?? '-'}\n`),
  });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, users: sandbox.users })}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await sandbox.close();
  return 0;
}
