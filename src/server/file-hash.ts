// sha256 of a file's bytes, for gitea_server_status's restart_required.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The hex digest, or 'unreadable' (which never equals the hash of a readable file). */
export function fileSha256(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return 'unreadable';
  }
}
