// Files in denials, findings and status never read as ../ paths, wherever the server or command runs:
// the user's relative to the working directory, the package's own as gitea-warden:<path>, else absolute.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, shownPath } from '../src/shared/paths.js';
import { tempDir } from './support/namespace.js';

const dir = tempDir('warden-shown-paths-');
after(() => dir.dispose());
const work = join(dir.path, 'userrepo');
const elsewhere = join(dir.path, 'elsewhere');
mkdirSync(join(work, 'profiles'), { recursive: true });
mkdirSync(elsewhere);
copyFileSync(join(packageRoot, 'profiles', 'gitea-author.yaml'), join(work, 'profiles', 'mine.yaml'));
copyFileSync(join(packageRoot, 'profiles', 'gitea-author.yaml'), join(elsewhere, 'theirs.yaml'));

test('shownPath: package files, files under the working directory, files elsewhere, markers', () => {
  const rows: Array<[string, string, string]> = [
    [join(packageRoot, 'policies', 'guards.yaml'), work, 'gitea-warden:policies/guards.yaml'],
    [join(packageRoot, 'profiles', 'gitea-author.yaml'), elsewhere, 'gitea-warden:profiles/gitea-author.yaml'],
    // In the checkout itself, its files are the working directory's.
    [join(packageRoot, 'policies', 'guards.yaml'), packageRoot, 'policies/guards.yaml'],
    [join(work, 'profiles', 'mine.yaml'), work, 'profiles/mine.yaml'],
    ['profiles/mine.yaml', work, 'profiles/mine.yaml'],
    [join(elsewhere, 'theirs.yaml'), work, join(elsewhere, 'theirs.yaml')],
    ['../elsewhere/theirs.yaml', work, join(elsewhere, 'theirs.yaml')],
    ['<inline>', work, '<inline>'],
  ];
  for (const [file, cwd, shown] of rows) assert.equal(shownPath(file, cwd), shown, `${file} from ${cwd}`);
});

const tsx = import.meta.resolve('tsx');
const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', tsx, join(packageRoot, 'src', 'cli', 'main.ts'), ...args], {
    cwd,
    encoding: 'utf8',
  });

test('decide from a user repository: the reference profile as gitea-warden:, the user profile relative', () => {
  const reference = JSON.parse(
    cli(work, 'decide', '--profile', 'gitea-warden:gitea-author', '--operation', 'gitea.pr.merge').stdout,
  );
  const line =
    readFileSync(join(packageRoot, 'profiles', 'gitea-author.yaml'), 'utf8')
      .split('\n')
      .findIndex((l) => l.trim() === '- gitea.pr.merge') + 1;
  assert.deepEqual(reference.determining, {
    file: 'gitea-warden:profiles/gitea-author.yaml',
    line,
    rule: 'forbidden_operations: gitea.pr.merge',
  });
  const own = JSON.parse(
    cli(work, 'decide', '--profile', 'profiles/mine.yaml', '--operation', 'gitea.pr.merge').stdout,
  );
  assert.equal(own.determining.file, 'profiles/mine.yaml');
  const outside = JSON.parse(
    cli(work, 'decide', '--profile', '../elsewhere/theirs.yaml', '--operation', 'gitea.pr.merge').stdout,
  );
  assert.equal(outside.determining.file, join(elsewhere, 'theirs.yaml'));
});

test('check from a user repository: findings name the file relative to it, never with ../', () => {
  // A forbidden entry that cannot be normalized: an error finding with its line.
  const text = readFileSync(join(packageRoot, 'profiles', 'gitea-author.yaml'), 'utf8').replace(
    '  - gitea.pr.merge\n',
    '  - gitea.pr.mrege\n',
  );
  writeFileSync(join(work, 'profiles', 'broken.yaml'), text);
  const result = cli(join(work, 'profiles'), 'check', 'broken.yaml', join(elsewhere, 'theirs.yaml'));
  assert.equal(result.status, 1, result.stdout + result.stderr);
  assert.match(result.stdout, /^broken\.yaml:\d+: error/m);
  assert.doesNotMatch(result.stdout, /\.\.\//);
});
