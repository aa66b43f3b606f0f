// Reads a JSON request body up to a byte limit, so an oversized body is refused before it is buffered.
import type { IncomingMessage } from 'node:http';

export type BodyResult = { kind: 'json'; value: unknown } | { kind: 'too_large' } | { kind: 'invalid_json' };

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return tooLarge(req);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return tooLarge(req);
    chunks.push(chunk as Buffer);
  }
  try {
    return { kind: 'json', value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { kind: 'invalid_json' };
  }
}

/** Discards the rest of the body so the 413 answer reaches the client instead of a reset connection. */
function tooLarge(req: IncomingMessage): BodyResult {
  req.resume();
  return { kind: 'too_large' };
}
