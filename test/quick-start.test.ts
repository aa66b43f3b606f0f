// The README's quick start (`npm test`) on a machine without Chromium: the browser tests are skipped
// with their reason, counted like tests that ran (the same count as with a browser, which .ci/run
// compares across Node versions), and the run is green; a file that skips as a whole for a stated
// reason is not taken for one that crashed before declaring a test.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/shared/paths.js';
import { CHROMIUM } from './support/browser.js';
import { tempDir } from './support/namespace.js';

/** This process's environment for a test run of its own: node refuses to start one inside a test file's context. */
function outsideThisTest(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** The browser tests through the suite's own runner, as `npm test` runs them; TAP, since stdout is a pipe. */
function runBrowserTests(env: Record<string, string>): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'oauth-chromium.test'], {
    cwd: packageRoot,
    env: outsideThisTest(env),
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const count = (output: string, what: string) => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(output)?.[1] ?? -1);

describe('the quick start without Chromium', () => {
  test('the browser tests are skipped with their reason, counted, and the run is green', () => {
    const without = runBrowserTests({ CHROMIUM_PATH: '/nonexistent/chromium' });
    assert.equal(without.status, 0, without.output.slice(-3000));
    assert.match(without.output, /# SKIP no browser at \/nonexistent\/chromium: install Debian's chromium/);
    assert.ok(count(without.output, 'tests') > 0, without.output.slice(-1500));
    // Every test that drives the browser is skipped; a test of the file that needs none (the docs'
    // screenshot is the one the browser test took) still runs, and passes.
    assert.ok(count(without.output, 'skipped') > 0, without.output.slice(-1500));
    assert.equal(count(without.output, 'fail'), 0);
    assert.equal(count(without.output, 'skipped') + count(without.output, 'pass'), count(without.output, 'tests'));
    assert.doesNotMatch(without.output, /ran no test/);
  });

  test(
    'with Chromium the same tests run and pass, and the count is the same',
    { skip: !existsSync(CHROMIUM) && `no browser at ${CHROMIUM}` },
    () => {
      const without = runBrowserTests({ CHROMIUM_PATH: '/nonexistent/chromium' });
      const withBrowser = runBrowserTests({ CHROMIUM_PATH: CHROMIUM });
      assert.equal(withBrowser.status, 0, withBrowser.output.slice(-3000));
      assert.equal(count(withBrowser.output, 'skipped'), 0);
      assert.equal(count(withBrowser.output, 'tests'), count(without.output, 'tests'));
      assert.equal(count(withBrowser.output, 'pass'), count(withBrowser.output, 'tests'));
    },
  );

  test('a file skipped as a whole for a stated reason counts as a file that ran', () => {
    const dir = tempDir('warden-skip-');
    try {
      const file = join(dir.path, 'skipped.test.mjs');
      writeFileSync(
        file,
        "import { describe, test } from 'node:test';\ndescribe('needs a browser', { skip: 'no browser here' }, () => {\n  test('never runs', () => {});\n});\n",
      );
      const counts = join(dir.path, 'counts.json');
      const run = spawnSync(
        process.execPath,
        [
          '--test',
          `--test-reporter=${join(packageRoot, 'scripts', 'test-file-counts.mjs')}`,
          `--test-reporter-destination=${counts}`,
          file,
        ],
        { encoding: 'utf8', env: outsideThisTest() },
      );
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(readFileSync(counts, 'utf8')), { [file]: 1 });
    } finally {
      dir.dispose();
    }
  });

  test('the README says what the browser tests need', () => {
    const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
    assert.match(readme, /chromium/i);
    assert.match(readme, /CHROMIUM_PATH/);
    assert.match(readme, /skipped/);
  });
});
