// The compile cache holds code the server will run, so it is used only from a directory of the
// user's own that nobody else can write to; anything else starts without a cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compileCacheDirectory } from '../src/cli/compile-cache.js';
import { tempDir } from './support/namespace.js';

test('the cache lives in the user cache directory, created 0700', () => {
  const dir = tempDir('warden-cache-');
  try {
    const found = compileCacheDirectory({ XDG_CACHE_HOME: dir.path });
    assert.equal(found, join(dir.path, 'gitea-warden', 'compile-cache'));
    assert.equal(statSync(found).mode & 0o777, 0o700);
    assert.equal(compileCacheDirectory({ HOME: dir.path }), join(dir.path, '.cache', 'gitea-warden', 'compile-cache'));
  } finally {
    dir.dispose();
  }
});

test('a cache directory others can write to is not used, nor one when none is asked for', () => {
  const dir = tempDir('warden-cache-');
  try {
    const planted = join(dir.path, 'gitea-warden', 'compile-cache');
    mkdirSync(planted, { recursive: true });
    chmodSync(planted, 0o777);
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: dir.path }), null);
    chmodSync(planted, 0o700);
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: dir.path }), planted);
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: dir.path, GITEA_WARDEN_COMPILE_CACHE: 'off' }), null);
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: dir.path, NODE_COMPILE_CACHE: '/elsewhere' }), null);
    assert.equal(compileCacheDirectory({}), null);
  } finally {
    dir.dispose();
  }
});

// Whoever can write to a directory above the cache can rename the cache away and plant their own.
test('a cache below a directory others can write to, or that another user owns, is not used', () => {
  const dir = tempDir('warden-cache-');
  try {
    const parent = join(dir.path, 'shared');
    const cache = join(parent, 'cache');
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    chmodSync(parent, 0o755);
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: cache }), join(cache, 'gitea-warden', 'compile-cache'));
    chmodSync(parent, 0o777);
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: cache }), null, 'a world-writable parent');
    chmodSync(parent, 0o775);
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: cache }), null, 'a group-writable parent');
    chmodSync(parent, 0o755);
    if (process.getuid?.() === 0) {
      chownSync(parent, 65534, 65534);
      assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: cache }), null, 'a parent owned by another user (not root)');
      chownSync(parent, 0, 0);
    }
    assert.equal(compileCacheDirectory({ XDG_CACHE_HOME: cache }), join(cache, 'gitea-warden', 'compile-cache'));
  } finally {
    dir.dispose();
  }
});
