// Items 4 and 5 of the benchmark, per reference namespace and tool mode. Start-up: from spawning one
// stdio namespace from the built package (`node dist/bin/gitea-warden.js serve`, the bundled command;
// one profile also from tsc's unbundled output, for comparison) to its first answered tools/list, the
// CPU time the process had used by then (utime + stime from /proc, independent of how busy the
// machine is) and its resident memory (VmRSS). Listing size: what the namespace sends
// on tools/list (tools, bytes, bytes/4 as a token estimate), cross-checked against the live answer.
// Recall at 3 of gitea_find_operations over the retrieval tasks in test/fixtures/.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { profilesDir } from '../src/shared/paths.js';
import { profileFilesIn } from '../src/policy-files/profile-files.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { namespaceListing } from '../src/server/namespace-report.js';
import { heldOutTasks, retrievalTasks } from '../test/fixtures/retrieval-tasks.js';
import { INSTALLED_BIN, namespaceEnv, repoRoot, tempDir } from '../test/support/namespace.js';
import { recallAt3 } from '../test/support/retrieval.js';
import { cpuMilliseconds, residentMegabytes } from './process-usage.js';
import { nowMicroseconds, overRounds, progress, type Spread } from './stats.js';

export const MODES = ['static', 'discovery'] as const;
export type MeasuredMode = (typeof MODES)[number];
/** tsc's output before bundling, started for comparison (one profile) in the same run. */
const UNBUNDLED = 'dist/cli/main.js';
const COMPARED_PROFILE = 'gitea-author';

/** bundled: the installed command (every profile); unbundled: the same code as tsc built it, module by module. */
export type Build = 'bundled' | 'unbundled';

export interface StartupFigures {
  profile: string;
  mode: MeasuredMode;
  build: Build;
  command: string;
  startupMilliseconds: Spread;
  /** CPU time (user + system) of the server process when its first tools/list was answered. */
  cpuMilliseconds: Spread;
  rssMegabytes: Spread;
  /** Bytes of the live tools/list result ({"tools": [...]}), to compare with the listing table. */
  liveListBytes: number;
}

export interface ListingFigures {
  profile: string;
  mode: MeasuredMode;
  /** What TOOL_MODE=auto serves this namespace. */
  autoMode: MeasuredMode;
  tools: number;
  bytes: number;
  estimatedTokens: number;
}

export interface RecallFigures {
  tasks: number;
  recallAt3: number;
  heldOutTasks: number;
  heldOutRecallAt3: number;
  misses: string[];
}

/**
 * Every reference namespace in each mode from the bundled command, then gitea-author in each mode from the
 * unbundled build for comparison; `rounds` start-ups each (built by `npm run build`).
 */
export async function benchStartup(rounds: number): Promise<StartupFigures[]> {
  for (const entry of [INSTALLED_BIN, UNBUNDLED])
    if (!existsSync(join(repoRoot, entry))) throw new Error(`${entry} is not built; run npm run build`);
  const sandbox = await startSandbox();
  const audit = tempDir('warden-bench-startup-');
  const profiles = profileFilesIn(profilesDir).map((file) =>
    file.slice(file.lastIndexOf('/') + 1).replace(/\.yaml$/, ''),
  );
  const runs: { profile: string; build: Build; entry: string }[] = [
    ...profiles.map((profile) => ({ profile, build: 'bundled' as const, entry: INSTALLED_BIN })),
    { profile: COMPARED_PROFILE, build: 'unbundled', entry: UNBUNDLED },
  ];
  const figures: StartupFigures[] = [];
  try {
    for (const { profile, build, entry } of runs) {
      for (const mode of MODES) {
        figures.push(await startupOf(sandbox, audit.path, rounds, profile, mode, build, entry));
      }
    }
    return figures;
  } finally {
    await sandbox.close();
    audit.dispose();
  }
}

async function startupOf(
  sandbox: Sandbox,
  auditDir: string,
  rounds: number,
  profile: string,
  mode: MeasuredMode,
  build: Build,
  entry: string,
): Promise<StartupFigures> {
  let liveListBytes = 0;
  const spread = await overRounds(rounds, async (round) => {
    progress(`start-up: ${profile} ${mode} (${build}), round ${round + 1} of ${rounds}`);
    const env = namespaceEnv(sandbox, profile, {
      auditLog: `${auditDir}/${profile}-${mode}-${build}-${round}.jsonl`,
      extra: { TOOL_MODE: mode },
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [entry, 'serve'],
      env,
      cwd: repoRoot,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'warden-bench', version: '0.0.0' });
    const start = nowMicroseconds();
    try {
      await client.connect(transport);
      const listed = await client.listTools();
      const milliseconds = (nowMicroseconds() - start) / 1000;
      liveListBytes = Buffer.byteLength(JSON.stringify({ tools: listed.tools }), 'utf8');
      return {
        startupMilliseconds: milliseconds,
        cpuMilliseconds: cpuMilliseconds(transport.pid),
        rssMegabytes: residentMegabytes(transport.pid),
      };
    } finally {
      await client.close();
    }
  });
  return { profile, mode, build, command: `node ${entry} serve`, ...spread, liveListBytes };
}

export function benchListings(): ListingFigures[] {
  return profileFilesIn(profilesDir).flatMap((file) => {
    const autoMode = namespaceListing(file).mode.mode;
    return MODES.map((mode) => {
      const listing = namespaceListing(file, null, mode);
      return {
        profile: listing.profile,
        mode,
        autoMode,
        tools: listing.tools.length,
        bytes: listing.bytes,
        estimatedTokens: listing.estimatedTokens,
      };
    });
  });
}

export function benchRecall(): RecallFigures {
  const main = recallAt3(retrievalTasks);
  const heldOut = recallAt3(heldOutTasks);
  return {
    tasks: main.tasks,
    recallAt3: main.recall,
    heldOutTasks: heldOut.tasks,
    heldOutRecallAt3: heldOut.recall,
    misses: [...main.misses, ...heldOut.misses].map((miss) => `${miss.task} -> ${miss.found.join(', ')}`),
  };
}
