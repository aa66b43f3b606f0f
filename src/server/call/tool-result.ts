// Payloads as MCP CallToolResults: one text item holding the JSON, and the same object as
// structuredContent. Refusals by the server use the executor's error shape { error: { kind, ... } }.
import type { ReasonCode } from '../../policy/reasons.js';
import type { CallToolResult } from '../sdk.js';

export function toolResult(payload: object, isError: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(payload) }],
    structuredContent: payload as Record<string, unknown>,
    isError,
  };
}

/** A refusal by the server itself (before or instead of a Gitea request). */
export function refusal(kind: ReasonCode, message: string, details: Record<string, unknown> = {}): CallToolResult {
  return toolResult({ error: { kind, message, ...details }, request: null }, true);
}
