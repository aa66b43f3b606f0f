#!/usr/bin/env node
// The one binary, `gitea-warden`, and its subcommands. Each command is its own module exporting
// `run(argv) => Promise<exit code>`; they are loaded lazily so `gitea-warden check` never pays for the server.
import { readFileSync } from 'node:fs';
import { didYouMean } from '../policy/nearest.js';
import { enableCompileCache } from './compile-cache.js';

// Before any command module loads, so they are read from the cache when there is one.
enableCompileCache();

type Command = { summary: string; load: () => Promise<{ run: (argv: string[]) => Promise<number> }> };

const commands: Record<string, Command> = {
  init: {
    summary: 'write starter profiles for your team and the MCP client configuration',
    load: () => import('./init.js'),
  },
  serve: {
    summary: 'run one MCP namespace (stdio or streamable HTTP) with one profile',
    load: () => import('./serve.js'),
  },
  doctor: {
    summary: "check a namespace's setup (URL, token, scopes, identity) before wiring a client",
    load: () => import('./doctor.js'),
  },
  check: { summary: 'lint profile files and policies (text, json or sarif)', load: () => import('./check.js') },
  decide: {
    summary: 'decide requests against a profile (one, or --batch JSON Lines)',
    load: () => import('./decide.js'),
  },
  explain: { summary: 'explain one decision for a person', load: () => import('./explain.js') },
  diff: { summary: 'operations a profile gains or loses between two versions', load: () => import('./diff.js') },
  migrate: { summary: 'turn legacy profiles into canonical ones', load: () => import('./migrate.js') },
  tools: { summary: 'list the catalog, or what a profile lists (--profile P)', load: () => import('./tools.js') },
  audit: { summary: 'verify a hash-chained audit log', load: () => import('./audit.js') },
  catalog: { summary: 'generate the catalog from the Gitea spec', load: () => import('./catalog.js') },
  reasons: {
    summary: 'generate docs/reasons.md, every outcome code and its meaning',
    load: () => import('./reasons.js'),
  },
  sandbox: { summary: 'serve the stand-in Gitea on 127.0.0.1', load: () => import('./sandbox.js') },
  demo: { summary: 'walk the four namespaces through the sandbox', load: () => import('./demo.js') },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return (
    `usage: gitea-warden <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun gitea-warden ` +
    `<command> --help for a command's options; gitea-warden --version for the version.\n`
  );
}

/** The installed package's version (src/cli or dist/cli sit two levels below package.json). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`gitea-warden ${version()}\n`);
    return 0;
  }
  if (name === undefined) {
    // No command is a wrong command line: the usage goes where errors go, so a pipe does not take it for output.
    process.stderr.write(usage());
    return 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(
      `gitea-warden: unknown command '${name}'${didYouMean(name, Object.keys(commands))}\n\n${usage()}`,
    );
    return 2;
  }
  const module = await command.load();
  return module.run(rest);
}

// A reader that stops early (`gitea-warden tools --json | head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Never a stack trace or a value that could hold a secret: the message only.
    process.stderr.write(`gitea-warden: ${error instanceof Error ? error.message : 'unexpected error'}\n`);
    process.exitCode = 2;
  },
);
