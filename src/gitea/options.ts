// The executor's knobs, with their defaults. The server fills them from its environment
// (MAX_BINARY_BYTES, MAX_TOOL_RESPONSE_ITEMS, ...); nothing here reads the environment.
import { DEFAULT_ARCHIVE_BOUNDS, type ArchiveBounds } from './archive.js';

export type SecretDetectionMode = 'off' | 'mask' | 'block';

export interface ExecutorOptions {
  /** Largest binary body returned as base64, and largest base64 file accepted for upload (bytes). */
  maxBinaryBytes: number;
  /** Largest response body read from Gitea at all (bytes); above it the call is payload_too_large. */
  maxResponseBytes: number;
  /** Arrays in a result are cut to this many items (MAX_TOOL_RESPONSE_ITEMS). */
  maxItems: number;
  /** The serialized result is cut to about this many characters (MAX_TOOL_RESPONSE_CHARS). */
  maxChars: number;
  /** Pattern-based secret detection on results (SECRET_DETECTION_MODE). Exact redaction is always on. */
  secretDetectionMode: SecretDetectionMode;
  /** The server's own configured secrets (bearer token, OAuth client secret, extra_secrets). */
  serverSecrets: string[];
  /** Whole-request timeout, body included (ms). */
  timeoutMs: number;
  /** Bounds for opening archives inside downloads; past them a download is withheld (src/gitea/archive.ts). */
  archiveBounds: ArchiveBounds;
}

export const DEFAULT_EXECUTOR_OPTIONS: Readonly<ExecutorOptions> = Object.freeze({
  maxBinaryBytes: 1024 * 1024,
  maxResponseBytes: 32 * 1024 * 1024,
  maxItems: 100,
  maxChars: 60_000,
  secretDetectionMode: 'mask',
  serverSecrets: [],
  timeoutMs: 30_000,
  archiveBounds: DEFAULT_ARCHIVE_BOUNDS,
});

export function resolveExecutorOptions(overrides: Partial<ExecutorOptions> = {}): ExecutorOptions {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_EXECUTOR_OPTIONS, ...defined };
}
