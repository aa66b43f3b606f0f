// Redaction throughput on a large, realistic result: a generated ~5 MB JSON list of issues with a
// few secrets sprinkled in. Reports MB/s for exact-only redaction and for exact + pattern masking.
// Run standalone: node --import tsx bench/redaction.ts
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Redactor } from '../src/gitea/redact.js';

export interface RedactionBenchFigures {
  inputBytes: number;
  issues: number;
  rounds: number;
  exactOnlyMBps: number;
  maskMBps: number;
  textMaskMBps: number;
}

const TOKEN = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b';
const SERVER_SECRETS = ['server-bearer-token-value', 'oauth-client-secret-value'];
const PROSE =
  'Steps to reproduce: open the settings page, change the branch protection and save. The page answers 500 and the log shows a nil pointer in the mirror sync. ';

function issue(number: number): Record<string, unknown> {
  const secret = number % 250 === 0 ? ` leaked api_key=Zx81hd72kq0pW${number} and ghp_${'a1B2'.repeat(9)}` : '';
  return {
    id: 100000 + number,
    number,
    url: `https://gitea.example/api/v1/repos/acme/widgets/issues/${number}`,
    html_url: `https://gitea.example/acme/widgets/issues/${number}`,
    title: `Mirror sync fails after protection change (#${number})`,
    body: `${PROSE.repeat(1 + (number % 8))}Commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3.${secret}`,
    user: {
      id: 7,
      login: 'alice',
      full_name: 'Alice Example',
      email: 'alice@example.org',
      avatar_url: 'https://gitea.example/avatars/7',
    },
    labels: [
      { id: 1, name: 'bug', color: 'ee0701' },
      { id: 4, name: 'mirror', color: '0052cc' },
    ],
    state: number % 3 === 0 ? 'closed' : 'open',
    comments: number % 17,
    created_at: '2025-01-02T03:04:05Z',
    updated_at: '2025-02-03T04:05:06Z',
    pull_request: null,
    repository: { id: 3, name: 'widgets', owner: 'acme', full_name: 'acme/widgets' },
  };
}

export function generateIssues(targetBytes = 5 * 1024 * 1024): { text: string; data: unknown[] } {
  const data: unknown[] = [];
  let size = 2;
  while (size < targetBytes) {
    const item = issue(data.length + 1);
    size += JSON.stringify(item).length + 1;
    data.push(item);
  }
  return { text: JSON.stringify(data), data };
}

function throughput(bytes: number, rounds: number, run: () => void): number {
  run(); // warm-up: regex compilation and JIT
  const start = performance.now();
  for (let round = 0; round < rounds; round++) run();
  const seconds = (performance.now() - start) / 1000;
  return Number(((bytes * rounds) / (1024 * 1024) / seconds).toFixed(1));
}

export function benchRedaction(rounds = 5): RedactionBenchFigures {
  const { text, data } = generateIssues();
  const secrets = [TOKEN, ...SERVER_SECRETS];
  const bytes = Buffer.byteLength(text);
  return {
    inputBytes: bytes,
    issues: data.length,
    rounds,
    exactOnlyMBps: throughput(bytes, rounds, () => new Redactor(secrets, { patterns: false }).value(data)),
    maskMBps: throughput(bytes, rounds, () => new Redactor(secrets, { patterns: true }).value(data)),
    textMaskMBps: throughput(bytes, rounds, () => new Redactor(secrets, { patterns: true }).text(text)),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = benchRedaction();
  console.log(
    `redaction of ${(figures.inputBytes / (1024 * 1024)).toFixed(1)} MB (${figures.issues} issues), ${figures.rounds} rounds:`,
  );
  console.log(`  exact only (walk decoded JSON):      ${figures.exactOnlyMBps} MB/s`);
  console.log(`  exact + patterns (walk decoded JSON): ${figures.maskMBps} MB/s`);
  console.log(`  exact + patterns (one raw string):    ${figures.textMaskMBps} MB/s`);
}
