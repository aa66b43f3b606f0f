// Whether a multi-identity config (GITEA_MCP_CONFIG) lets gitea_activate_profile switch profiles at
// runtime: only when it says `allow_runtime_switching: true`. Unreadable, absent or anything else: no.
import { readChecked } from './policy-set.js';

export function runtimeSwitchingAllowed(configFile: string): boolean {
  const data = readChecked(configFile).doc?.data;
  return (
    typeof data === 'object' && data !== null && (data as Record<string, unknown>).allow_runtime_switching === true
  );
}
