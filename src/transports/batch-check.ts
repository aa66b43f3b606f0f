// JSON-RPC batches are refused, not counted message by message. MCP's current protocol versions
// (2025-06-18 and later) removed batching and no client we know of sends one; the SDK would still
// run up to 100 messages of one POST, which let a single request pass the rate limit 100 times.
// Refusing the batch keeps "one HTTP request, one message, one token of the limit".
export const BATCH_REFUSAL = 'Invalid Request: JSON-RPC batches are not accepted; send one message per request';

export function isJsonRpcBatch(body: unknown): boolean {
  return Array.isArray(body);
}
