// `gitea-warden tools [--json]`: lists the catalog. Selection (which entries) and rendering (how)
// are separate so further filters, such as a profile, slot into selectEntries.
import { parseArgs } from 'node:util';
import { annotationWords, groupByDomain } from '../catalog/generate.js';
import { loadCatalog } from '../catalog/load.js';
import type { CatalogEntry } from '../catalog/types.js';

const USAGE = `usage: gitea-warden tools [--json]

Lists the catalog's tools: name, operationId, method, path and annotations, grouped by domain.
  --json  one JSON array instead of the table
`;

interface ToolsOptions {
  json: boolean;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const options: ToolsOptions = { json: values.json ?? false };
  const entries = selectEntries(loadCatalog().entries);
  process.stdout.write(options.json ? renderJson(entries) : renderTable(entries));
  return 0;
}

function selectEntries(entries: readonly CatalogEntry[]): CatalogEntry[] {
  return [...entries];
}

function renderJson(entries: readonly CatalogEntry[]): string {
  const rows = entries.map((e) => ({ name: e.name, operationId: e.operationId, method: e.method, path: e.path, annotations: e.annotations }));
  return `${JSON.stringify(rows, null, 2)}\n`;
}

function renderTable(entries: readonly CatalogEntry[]): string {
  const width = Math.max(...entries.map((e) => e.name.length));
  const lines: string[] = [];
  for (const [domain, group] of groupByDomain(entries)) {
    lines.push(`${domain} (${group.length})`);
    for (const e of group) {
      lines.push(`  ${e.name.padEnd(width)}  ${e.method.padEnd(6)} ${e.path}  [${annotationWords(e).join(', ')}]  ${e.operationId}`);
    }
    lines.push('');
  }
  lines.push(`${entries.length} tools`);
  return `${lines.join('\n')}\n`;
}
