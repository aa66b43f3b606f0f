// Redaction throughput on a large, realistic result: a generated ~5 MB JSON list of issues with a
// few secrets sprinkled in. Reports MB/s for exact-only redaction and for exact + pattern masking;
// and for a ~5 MB .tar.gz download (repoGetArchive): inflated, every file redacted, built again.
// Run standalone: node --import tsx bench/redaction.ts
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { Redactor } from '../src/gitea/redact.js';
import { paxRecords, tarEntry, writeTar } from '../src/shared/tar.js';

export interface RedactionBenchFigures {
  inputBytes: number;
  issues: number;
  rounds: number;
  exactOnlyMBps: number;
  maskMBps: number;
  textMaskMBps: number;
}

export interface ArchiveBenchFigures {
  /** The .tar.gz as downloaded. */
  archiveBytes: number;
  /** What its files inflate to. */
  inflatedBytes: number;
  files: number;
  rounds: number;
  /** Megabytes of the download per second: inflate, redact every file (exact + patterns), tar and gzip again. */
  archiveMBps: number;
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

/** A deterministic stream of hex text (seeded), which gzip cannot shrink much: a download of ~5 MB needs no huge tree. */
function hexLines(seed: number, bytes: number): string {
  let state = seed >>> 0 || 1;
  const lines: string[] = [];
  for (let size = 0; size < bytes; size += 65) {
    let line = '';
    for (let i = 0; i < 8; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      line += (state >>> 0).toString(16).padStart(8, '0');
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/** A repository's tarball as `git archive` writes it: ~5 MB compressed, source files with a few secrets. */
export function generateArchive(targetBytes = 5 * 1024 * 1024): {
  archive: Buffer;
  inflatedBytes: number;
  files: number;
} {
  const entries = [
    tarEntry({
      name: 'pax_global_header',
      type: 'g',
      data: paxRecords([['comment', 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3']]),
    }),
  ];
  let inflated = 0;
  for (let n = 0; inflated < targetBytes * 1.9; n++) {
    const secret = n % 50 === 0 ? `\nconst apiKey = "api_key=Zx81hd72kq0pW${n}"; // ${TOKEN}\n` : '';
    const text = `// module ${n}\n${PROSE.repeat(4)}${secret}\nexport const data = \`\n${hexLines(n + 1, 12 * 1024)}\n\`;\n`;
    entries.push(tarEntry({ name: `widgets/src/module-${n}.js`, data: Buffer.from(text) }));
    inflated += text.length;
  }
  return { archive: gzipSync(writeTar(entries)), inflatedBytes: inflated, files: entries.length - 1 };
}

export function benchArchiveRedaction(rounds = 3): ArchiveBenchFigures {
  const { archive, inflatedBytes, files } = generateArchive();
  const secrets = [TOKEN, ...SERVER_SECRETS];
  return {
    archiveBytes: archive.length,
    inflatedBytes,
    files,
    rounds,
    archiveMBps: throughput(archive.length, rounds, () =>
      new Redactor(secrets, { patterns: true }).fileBytes(archive, 'main.tar.gz'),
    ),
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
  const archive = benchArchiveRedaction();
  console.log(
    `a ${(archive.archiveBytes / (1024 * 1024)).toFixed(1)} MB .tar.gz (${archive.files} files, ${(archive.inflatedBytes / (1024 * 1024)).toFixed(1)} MB inflated), ${archive.rounds} rounds:`,
  );
  console.log(`  opened, every file redacted, built again: ${archive.archiveMBps} MB/s of the download`);
}
