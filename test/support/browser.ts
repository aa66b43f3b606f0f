// Where the browser tests find headless Chromium: Debian's /usr/bin/chromium, or CHROMIUM_PATH. Without
// one, each browser test is skipped with this reason (a declared skip, counted like a test that ran, so
// the test count is the same with and without a browser) and the run stays green.
import { existsSync } from 'node:fs';

export const CHROMIUM: string = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** false when the browser is there; otherwise why the browser tests are skipped and how to run them. */
export const noBrowser: string | false = existsSync(CHROMIUM)
  ? false
  : `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH to run this test`;
