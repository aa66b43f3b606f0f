// The process logger: pino, always to stderr (fd 2), because stdout carries JSON-RPC under stdio.
import { destination, pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/** Header and field names whose values are never logged, wherever they appear in a log object. */
const REDACTED = [
  'authorization',
  'token',
  'password',
  '*.authorization',
  '*.token',
  '*.password',
  'headers.authorization',
  'req.headers.authorization',
];

export function createLogger(level: LevelWithSilent = 'info'): Logger {
  // Synchronous writes so the last lines before an exit are not lost.
  return pino({ level, redact: { paths: REDACTED, censor: '[redacted]' } }, destination({ fd: 2, sync: true }));
}
