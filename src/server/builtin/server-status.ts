// gitea_server_status: the version and the hashes of the profile and policy files this process
// loaded; restart_required when any of them changed on disk since start (compared at call time).
import { relative } from 'node:path';
import { packageRoot } from '../../shared/paths.js';
import { fileSha256 } from '../file-hash.js';
import type { BuiltinTool } from './types.js';

export const serverStatusTool: BuiltinTool = {
  name: 'gitea_server_status',
  title: 'Server status',
  description: 'Version of gitea-warden, the sha256 of the loaded profile file and of each policies/*.yaml file, and restart_required: true when one of them changed on disk since the server started (changes apply only after a restart).',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  async handler({ session }) {
    const files = session.watchedFiles.map((file) => {
      const now = fileSha256(file.path);
      return { path: relative(packageRoot, file.path), sha256: file.sha256, changed: now !== file.sha256 };
    });
    const payload = {
      name: 'gitea-warden',
      version: session.version,
      profile: session.profile.name,
      transport: session.settings.transport,
      tools: session.registry.tools.length,
      files,
      restart_required: files.some((file) => file.changed),
    };
    return { kind: 'answer', payload, isError: false, audit: { operation: null, decision: null, reason: 'server_status' } };
  },
};
