import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BearerCheck } from '../src/transports/bearer.js';
import { allowedHostList, hostAllowed, isLoopbackHostname } from '../src/transports/host-check.js';
import { RateLimiter } from '../src/transports/rate-limit.js';
import { StartupError } from '../src/shared/startup-error.js';
import { checkStartup, type StartupOptions } from '../src/transports/startup.js';

const TOKEN = 'a-long-enough-token-1234';

describe('checkStartup', () => {
  const base: StartupOptions = {
    host: '127.0.0.1',
    port: 8741,
    path: '/mcp',
    allowedHosts: [],
    rateLimitPerMinute: 120,
    maxBodyBytes: 1024,
  };
  const cases: { name: string; change: Partial<StartupOptions>; refused: RegExp | null }[] = [
    { name: 'loopback without a token', change: {}, refused: null },
    { name: 'localhost without a token', change: { host: 'localhost' }, refused: null },
    { name: '::1 without a token', change: { host: '::1' }, refused: null },
    { name: '0.0.0.0 with a token', change: { host: '0.0.0.0', bearerToken: TOKEN }, refused: null },
    {
      name: '0.0.0.0 without a token',
      change: { host: '0.0.0.0' },
      refused: /refusing to listen on 0\.0\.0\.0 without MCP_BEARER_TOKEN/,
    },
    { name: ':: without a token', change: { host: '::' }, refused: /without MCP_BEARER_TOKEN/ },
    { name: 'a LAN address without a token', change: { host: '192.168.1.10' }, refused: /without MCP_BEARER_TOKEN/ },
    { name: 'an empty token on loopback', change: { bearerToken: '' }, refused: /shorter than 16/ },
    { name: 'a short token on loopback', change: { bearerToken: 'short-token' }, refused: /shorter than 16/ },
    { name: 'a token of spaces', change: { bearerToken: ' '.repeat(20) }, refused: /shorter than 16/ },
    { name: 'port out of range', change: { port: 70000 }, refused: /MCP_PORT/ },
    { name: 'path without a slash', change: { path: 'mcp' }, refused: /MCP_PATH/ },
    { name: 'path /health', change: { path: '/health' }, refused: /MCP_PATH/ },
    { name: 'a PUBLIC_BASE_URL that is not http(s)', change: { publicBaseUrl: 'ftp://x' }, refused: /PUBLIC_BASE_URL/ },
    {
      name: 'an ALLOWED_HOSTS entry that is not a host',
      change: { allowedHosts: ['https://x/'] },
      refused: /ALLOWED_HOSTS/,
    },
    { name: 'a zero rate limit', change: { rateLimitPerMinute: 0 }, refused: /RATE_LIMIT_PER_MINUTE/ },
  ];
  for (const { name, change, refused } of cases) {
    test(`${name}: ${refused === null ? 'accepted' : 'refused'}`, () => {
      const run = () => checkStartup({ ...base, ...change });
      if (refused === null) return assert.doesNotThrow(run);
      assert.throws(run, (error: unknown) => {
        assert.ok(error instanceof StartupError);
        assert.equal(error.exitCode, 2);
        assert.match(error.message, refused);
        return true;
      });
    });
  }

  test('a refused token never appears in the message', () => {
    assert.throws(
      () => checkStartup({ ...base, bearerToken: 'sekrit-value' }),
      (error: Error) => !error.message.includes('sekrit'),
    );
  });
});

describe('host check', () => {
  test('loopback names and addresses', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'LOCALHOST'])
      assert.equal(isLoopbackHostname(host), true, host);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'localhost.example.com', '127.0.0.1.nip.io'])
      assert.equal(isLoopbackHostname(host), false, host);
  });

  const allowed = allowedHostList('https://mcp.example.com:8443/base', [
    'other.example.org',
    'pinned.example.org:9000',
    '[2001:db8::1]',
  ]);
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['mcp.example.com', true],
    ['mcp.example.com:1234', true],
    ['other.example.org:80', true],
    ['pinned.example.org:9000', true],
    ['pinned.example.org', false],
    ['[2001:db8::1]:443', true],
    ['evil.com', false],
    ['mcp.example.com.evil.com', false],
    ['user@mcp.example.com', false],
  ];
  for (const [host, expected] of cases) {
    test(`Host ${JSON.stringify(host)} -> ${expected ? 'allowed' : 'refused'}`, () => {
      assert.equal(hostAllowed(host, allowed), expected);
    });
  }
});

describe('RateLimiter', () => {
  test('allows a burst up to the limit, then refuses with the seconds until the next request', () => {
    let now = 0;
    const limiter = new RateLimiter(3, () => now);
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.take('a').allowed),
      [true, true, true],
    );
    assert.deepEqual(limiter.take('a'), { allowed: false, retryAfterSeconds: 20 });
    now += 20_000;
    assert.equal(limiter.take('a').allowed, true);
    assert.equal(limiter.take('a').allowed, false);
  });

  test('clients are limited separately', () => {
    const limiter = new RateLimiter(1, () => 0);
    assert.equal(limiter.take('a').allowed, true);
    assert.equal(limiter.take('a').allowed, false);
    assert.equal(limiter.take('b').allowed, true);
  });

  test('refuses a limit below 1', () => {
    assert.throws(() => new RateLimiter(0), RangeError);
  });
});

describe('BearerCheck', () => {
  const check = new BearerCheck(TOKEN);
  const cases: [string | undefined, boolean][] = [
    [`Bearer ${TOKEN}`, true],
    [`bearer ${TOKEN}`, true],
    [`Bearer ${TOKEN}x`, false],
    [`Bearer ${TOKEN.slice(0, -1)}`, false],
    [TOKEN, false],
    [`Basic ${TOKEN}`, false],
    ['Bearer ', false],
    [undefined, false],
  ];
  for (const [header, expected] of cases) {
    test(`${header === undefined ? 'no header' : header.replace(TOKEN, '<token>')} -> ${expected}`, () => {
      assert.equal(check.matches(header), expected);
    });
  }
});
