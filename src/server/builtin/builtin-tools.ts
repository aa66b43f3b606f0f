// Every built-in tool, in the order tools/list shows them. A new built-in is one file here plus one line.
import { activateProfileTool } from './activate-profile.js';
import { apiRequestTool } from './api-request.js';
import { callOperationTool } from './call-operation.js';
import { describeOperationTool } from './describe-operation.js';
import { findOperationsTool } from './find-operations.js';
import { cleanupMergedPrBranchTool } from './cleanup-merged-pr-branch.js';
import { reconcileAlreadyLandedPrTool } from './reconcile-already-landed-pr.js';
import { resolveTaskCapabilityTool } from './resolve-task-capability.js';
import { serverStatusTool } from './server-status.js';
import type { BuiltinTool } from './builtin-tool.js';
import { whoamiTool } from './whoami.js';

export function builtinTools(): BuiltinTool[] {
  return [
    whoamiTool,
    serverStatusTool,
    resolveTaskCapabilityTool,
    activateProfileTool,
    apiRequestTool,
    cleanupMergedPrBranchTool,
    reconcileAlreadyLandedPrTool,
    findOperationsTool,
    describeOperationTool,
    callOperationTool,
  ];
}
