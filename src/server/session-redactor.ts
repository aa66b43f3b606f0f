// The executor's redaction with one session's secrets, for what the server writes itself (guarded
// reports, audit events): the token and the server's own secrets exact, credential shapes masked
// unless SECRET_DETECTION_MODE is off.
import { Redactor } from '../gitea/redact.js';
import type { Session } from './session.js';

export function sessionRedactor(session: Session): Redactor {
  const { serverSecrets = [], secretDetectionMode = 'mask' } = session.executorOptions;
  return new Redactor([session.gitea.token, ...serverSecrets], { patterns: secretDetectionMode !== 'off' });
}
