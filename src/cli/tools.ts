// `gitea-warden tools [--json]`: lists the catalog. `--profile P`: what that namespace's tools/list
// sends (tool count, bytes, estimated tokens). `--report-md`: docs/namespaces.md for every reference profile.
import { parseArgs } from 'node:util';
import { annotationWords, groupByDomain } from '../catalog/generate.js';
import { loadCatalog } from '../catalog/load.js';
import type { CatalogEntry } from '../catalog/types.js';
import { readFileSync, writeFileSync } from 'node:fs';
import {
  namespaceListing,
  readmeFile,
  readmeWithClientTable,
  renderNamespacesDoc,
} from '../server/namespace-report.js';
import type { ToolModeSetting } from '../server/settings.js';

const USAGE = `usage: gitea-warden tools [--json] [--profile P [--config FILE] [--tool-mode M]] [--report-md] [--report-readme]

Lists the catalog's tools: name, operationId, method, path and annotations, grouped by domain.
  --json         one JSON array instead of the table
  --profile P    what namespace P lists by default: its tools, how many, the bytes of tools/list and
                 an estimated token count (bytes / 4); P is a reference profile name or a profile file
  --config FILE  the multi-identity config P is defined in
  --tool-mode M  static, discovery or auto (default: auto, as serve)
  --report-md    docs/namespaces.md: every reference profile in each tool mode
  --report-readme  rewrite the client table in README.md (between its client-table markers)
`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      profile: { type: 'string' },
      config: { type: 'string' },
      'tool-mode': { type: 'string', default: 'auto' },
      'report-md': { type: 'boolean', default: false },
      'report-readme': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values['report-md']) {
    process.stdout.write(renderNamespacesDoc());
    return 0;
  }
  if (values['report-readme']) {
    writeFileSync(readmeFile, readmeWithClientTable(readFileSync(readmeFile, 'utf8')));
    process.stdout.write(`wrote the client table of ${readmeFile}\n`);
    return 0;
  }
  if (values.profile !== undefined) {
    const mode = values['tool-mode'] ?? 'auto';
    if (!['auto', 'static', 'discovery'].includes(mode)) {
      process.stderr.write(`--tool-mode must be one of: auto, static, discovery\n`);
      return 2;
    }
    process.stdout.write(
      renderListing(values.profile, values.config ?? null, mode as ToolModeSetting, values.json ?? false),
    );
    return 0;
  }
  const { entries } = loadCatalog();
  process.stdout.write(values.json ? renderJson(entries) : renderTable(entries));
  return 0;
}

function renderJson(entries: readonly CatalogEntry[]): string {
  const rows = entries.map((e) => ({
    name: e.name,
    operationId: e.operationId,
    method: e.method,
    path: e.path,
    annotations: e.annotations,
  }));
  return `${JSON.stringify(rows, null, 2)}\n`;
}

function renderTable(entries: readonly CatalogEntry[]): string {
  const width = Math.max(...entries.map((e) => e.name.length));
  const lines: string[] = [];
  for (const [domain, group] of groupByDomain(entries)) {
    lines.push(`${domain} (${group.length})`);
    for (const e of group) {
      lines.push(
        `  ${e.name.padEnd(width)}  ${e.method.padEnd(6)} ${e.path}  [${annotationWords(e).join(', ')}]  ${e.operationId}`,
      );
    }
    lines.push('');
  }
  lines.push(`${entries.length} tools`);
  return `${lines.join('\n')}\n`;
}

function renderListing(profile: string, config: string | null, mode: ToolModeSetting, json: boolean): string {
  const listing = namespaceListing(profile, config, mode);
  const summary = {
    profile: listing.profile,
    tool_mode: listing.mode.mode,
    reason: listing.mode.reason,
    tools: listing.tools.length,
    bytes: listing.bytes,
    estimated_tokens: listing.estimatedTokens,
  };
  if (json) return `${JSON.stringify({ ...summary, names: listing.tools.map((t) => t.name) }, null, 2)}\n`;
  const names = listing.tools.map((t) => `  ${t.name}${t.annotations.readOnlyHint ? '' : '  [writes]'}`);
  return (
    `${names.join('\n')}\n\n${summary.tools} tools, ${summary.bytes} bytes of tools/list (~${summary.estimated_tokens} tokens) for ${summary.profile}\n` +
    `${summary.tool_mode} mode: ${summary.reason}\n`
  );
}
