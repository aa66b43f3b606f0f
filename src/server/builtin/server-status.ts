// gitea_server_status: the version and the hashes of the profile and policy files this process
// loaded; restart_required when any of them changed on disk since start (compared at call time).
import { shownPath } from '../../shared/paths.js';
import { fileSha256 } from '../file-hash.js';
import type { Session } from '../session.js';
import type { BuiltinTool } from './builtin-tool.js';

/** The profile's floor and, while the principal's taint lasts, the item that tainted it and the private repositories read. */
async function integrityStatus(session: Session) {
  const { integrity, secrecy } = session.profile;
  let state: Awaited<ReturnType<typeof session.taint.state>> | null = null;
  try {
    state = await session.taint.state();
  } catch {
    state = null;
  }
  const source = state?.untrusted[0]?.source ?? null;
  return {
    floor: integrity.minLevel,
    below: integrity.below,
    after_untrusted: integrity.afterUntrusted,
    secrecy: secrecy.enabled ? 'refuse_public_sinks' : 'off',
    taint_store: state === null ? 'unavailable' : session.taint.store.kind,
    tainted_by: source && {
      type: source.type,
      id: source.id,
      author: source.author,
      repository: source.repository,
      level: source.level,
    },
    private_reads: state?.privateReads.map((entry) => entry.repository) ?? [],
  };
}

export const serverStatusTool: BuiltinTool = {
  name: 'gitea_server_status',
  title: 'Server status',
  description:
    'Version of gitea-warden, the tool mode in force (static or discovery) and why, the sha256 of the loaded profile ' +
    'file and of each policies/*.yaml file, restart_required: true when one of them changed on disk since the server ' +
    'started (changes apply only after a restart), and the integrity floor with the item that tainted the session, if any.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  async handler({ session }) {
    const files = session.watchedFiles.map((file) => {
      const now = fileSha256(file.path);
      return { path: shownPath(file.path), sha256: file.sha256, changed: now !== file.sha256 };
    });
    const payload = {
      name: 'gitea-warden',
      version: session.version,
      profile: session.profile.name,
      transport: session.settings.transport,
      tools: session.registry.tools.length,
      tool_mode: {
        mode: session.registry.mode.mode,
        requested: session.registry.mode.requested,
        reason: session.registry.mode.reason,
      },
      files,
      restart_required: files.some((file) => file.changed),
      integrity: await integrityStatus(session),
    };
    return {
      kind: 'answer',
      payload,
      isError: false,
      audit: { operation: null, decision: null, reason: 'server_status' },
    };
  },
};
