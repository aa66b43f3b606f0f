// `gitea-warden catalog generate [--spec FILE] [--check]`: the spec -> tools.json + docs/tools.md.
// `catalog docs` (docs/operations.md, from the policies) lives in ./catalog-docs.ts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { catalogFile, defaultSpecPath, toolsDocFile } from '../shared/paths.js';
import { catalogDrift, generateCatalog, renderGeneratedFiles, type GeneratedFiles } from '../catalog/generate.js';

const USAGE = `usage: gitea-warden catalog generate [--spec FILE] [--check]
       gitea-warden catalog docs [--check] [--out FILE]   (docs/operations.md; see catalog docs --help)

Generates src/catalog/tools.json and docs/tools.md from the pinned Gitea spec.
  --spec FILE  the swagger 2.0 spec (default: $GITEA_SPEC or ../shared/spec/gitea-1.27.1.swagger.v1.json)
  --check      write nothing; exit 1 and list the differences when the committed files are stale
`;

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'docs') return (await import('./catalog-docs.js')).run(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      spec: { type: 'string' },
      check: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals[0] !== 'generate' || positionals.length !== 1) {
    process.stderr.write(USAGE);
    return 2;
  }
  const fresh = renderGeneratedFiles(generateCatalog({ text: readSpec(values.spec ?? defaultSpecPath()) }));
  return values.check ? check(fresh) : write(fresh);
}

function readSpec(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new Error(`cannot read the Gitea spec ${file}; pass --spec FILE or set GITEA_SPEC`);
  }
}

function readCommitted(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function check(fresh: GeneratedFiles): number {
  const committed = { catalogJson: readCommitted(catalogFile), toolsDoc: readCommitted(toolsDocFile) };
  const drift = catalogDrift(fresh, committed);
  if (drift.length === 0) {
    process.stdout.write('catalog: tools.json and docs/tools.md are up to date\n');
    return 0;
  }
  process.stdout.write(
    `catalog: committed files differ from the spec; run gitea-warden catalog generate\n${drift.map((d) => `  ${d}\n`).join('')}`,
  );
  return 1;
}

function write(fresh: GeneratedFiles): number {
  mkdirSync(dirname(toolsDocFile), { recursive: true });
  writeFileSync(catalogFile, fresh.catalogJson);
  writeFileSync(toolsDocFile, fresh.toolsDoc);
  process.stdout.write(`catalog: wrote ${catalogFile} and ${toolsDocFile}\n`);
  return 0;
}
