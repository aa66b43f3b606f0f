// Every built-in tool, in the order tools/list shows them. A new built-in is one file here plus one line.
import { apiRequestTool } from './api-request.js';
import { serverStatusTool } from './server-status.js';
import type { BuiltinTool } from './types.js';
import { whoamiTool } from './whoami.js';

export function builtinTools(): BuiltinTool[] {
  return [whoamiTool, serverStatusTool, apiRequestTool];
}
