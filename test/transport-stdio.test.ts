import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { serveStdio } from '../src/transports/stdio.js';
import { createEchoServer } from './fixtures/echo-server.js';

/** Resolves with the next complete JSON-RPC line written to the stream. */
function nextMessage(stream: PassThrough): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline === -1) return;
      stream.off('data', onData);
      resolve(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
    };
    stream.on('data', onData);
  });
}

describe('serveStdio', () => {
  test('answers JSON-RPC lines on the given streams: initialize, then tools/call', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handle = await serveStdio(() => createEchoServer(), { stdin, stdout });
    try {
      const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
      const initialized = nextMessage(stdout);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      });
      assert.equal(((await initialized).result as { serverInfo: { name: string } }).serverInfo.name, 'echo-test');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const called = nextMessage(stdout);
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'over stdio' } },
      });
      assert.deepEqual(await called, {
        jsonrpc: '2.0',
        id: 2,
        result: { content: [{ type: 'text', text: 'echo: over stdio' }] },
      });
    } finally {
      await handle.close();
    }
  });
});
