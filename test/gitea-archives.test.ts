// Secrets inside downloads: archives (tar.gz, zip, nested, gzip) are opened within bounds, every file
// inside is redacted like file contents and the archive comes back built again; what cannot be
// inspected within the bounds (a zip or gzip bomb, a git bundle, nesting too deep) is withheld with
// its own kind, without inflating it. Wiki pages' content_base64 (and sidebar and footer) are decoded
// and masked like file contents.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { unzipSync, zipSync } from 'fflate';
import { execute } from '../src/gitea/executor.js';
import type { BinaryData } from '../src/gitea/decode.js';
import type { ErrorPayload, SuccessPayload } from '../src/gitea/envelope.js';
import { paxRecords, readTar, tarEntry, writeTar } from '../src/shared/tar.js';
import { entry, json, startServer, TOKEN, type TestServer } from './gitea-fixtures.js';

// Made when the file loads, before any request: seconds of compressing with the event loop blocked let
// the test server's keep-alive timer close a socket the client still holds for its next request.
const zeros40 = Buffer.from(zipSync({ 'zeros.bin': new Uint8Array(40 * 1024 * 1024) }, { level: 9 }));
const zeros64gz = gzipSync(Buffer.alloc(64 * 1024 * 1024));

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const PRIVATE_KEY_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj';
const PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----\n${PRIVATE_KEY_BODY}\n-----END PRIVATE KEY-----\n`;
const SECRETS = [TOKEN, AWS_KEY, PRIVATE_KEY_BODY];
const FILES: Record<string, string> = {
  'widgets/README.md': '# widgets\nNothing secret here.\n',
  'widgets/deploy/.env': `GITEA_TOKEN=${TOKEN}\nAWS_ACCESS_KEY_ID=${AWS_KEY}\n`,
  'widgets/keys/id_rsa': PRIVATE_KEY,
};

const getArchive = entry({
  operationId: 'repoGetArchive',
  path: '/repos/{owner}/{repo}/archive/{archive}',
  pathParams: ['owner', 'repo', 'archive'],
});
const context = () => ({ identity: server.identity, login: 'alice' });

function serveBytes(bytes: Buffer, contentType = 'application/octet-stream'): void {
  server.handle((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length) });
    res.end(bytes);
  });
}

/** As `git archive --format=tar.gz` writes it: a pax global header with the commit, then the files. */
function tarGz(files: Record<string, string | Buffer>): Buffer {
  const entries = [
    tarEntry({
      name: 'pax_global_header',
      type: 'g',
      data: paxRecords([['comment', 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3']]),
    }),
    tarEntry({ name: 'widgets/', type: '5' }),
    ...Object.entries(files).map(([name, data]) => tarEntry({ name, data: Buffer.from(data) })),
  ];
  return gzipSync(writeTar(entries));
}

function zip(files: Record<string, string | Buffer>): Buffer {
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([n, d]) => [n, Buffer.from(d)]))));
}

async function download(bytes: Buffer, archive: string, options = {}) {
  serveBytes(bytes);
  return execute(getArchive, { owner: 'acme', repo: 'widgets', archive }, context(), options);
}

/** Every file of a (gzipped) tar or zip, decoded: what an agent gets after unpacking the download. */
function unpack(bytes: Buffer): Record<string, string> {
  if (bytes[0] === 0x1f) {
    return Object.fromEntries(
      readTar(gunzipSync(bytes), 1000)
        .filter((e) => e.type === '0')
        .map((e) => [e.name, e.data.toString('utf8')]),
    );
  }
  return Object.fromEntries(Object.entries(unzipSync(bytes)).map(([n, d]) => [n, Buffer.from(d).toString('utf8')]));
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS)
    assert.equal(text.includes(secret), false, `${where} still holds ${secret.slice(0, 8)}…`);
}

describe('archives are opened and redacted inside', () => {
  for (const [format, archive, make] of [
    ['tar.gz', 'main.tar.gz', tarGz],
    ['zip', 'main.zip', zip],
  ] as const) {
    test(`a ${format} holding the namespace's token, an AWS key and a private key: none readable after unpacking`, async () => {
      const original = make(FILES);
      assert.equal(
        original.includes(Buffer.from(AWS_KEY)),
        false,
        'the test archive hides its contents from a byte search',
      );
      const result = await download(original, archive);
      assert.equal(result.isError, false, JSON.stringify(result.payload));
      const payload = result.payload as SuccessPayload;
      const data = payload.data as BinaryData;
      assert.equal(data.decoded_as, 'archive');
      assert.equal(data.changed, true);
      const bytes = Buffer.from(data.content_base64 ?? '', 'base64');
      const files = unpack(bytes);
      assert.deepEqual(Object.keys(files).sort(), Object.keys(FILES).sort(), 'every file is still there, by its name');
      for (const [name, text] of Object.entries(files)) assertNoSecret(text, name);
      assertNoSecret(JSON.stringify(payload), 'the envelope');
      assertNoSecret(bytes.toString('latin1'), 'the archive bytes');
      assert.equal(files['widgets/README.md'], FILES['widgets/README.md'], 'a file without a secret is unchanged');
      assert.match(files['widgets/deploy/.env'] ?? '', /GITEA_TOKEN=\[REDACTED sha256:[0-9a-f]{12}\]/);
      assert.match(files['widgets/deploy/.env'] ?? '', /AWS_ACCESS_KEY_ID=AKIA…\[MASKED hmac:/);
      assert.match(files['widgets/keys/id_rsa'] ?? '', /^----…\[MASKED hmac:/);
      const note = payload.file_contents?.[0];
      assert.equal(note?.decoded_as, 'archive');
      assert.equal(note?.archive?.format, format === 'zip' ? 'zip' : 'gzip');
      assert.deepEqual(note?.archive?.changed_entries.map((p) => p.replace(/^.*?widgets\//, '')).sort(), [
        'deploy/.env',
        'keys/id_rsa',
      ]);
    });
  }

  test('in block mode an archive with a credential inside is withheld, naming only the kinds', async () => {
    const result = await download(tarGz(FILES), 'main.tar.gz', { secretDetectionMode: 'block' });
    const error = (result.payload as ErrorPayload).error;
    assert.equal(error.kind, 'secret_blocked');
    assert.match(error.message, /aws_access_key, private_key/);
    assertNoSecret(JSON.stringify(result.payload), 'the refusal');
  });

  test("with pattern detection off, the namespace's own token is still redacted inside", async () => {
    const result = await download(zip(FILES), 'main.zip', { secretDetectionMode: 'off' });
    const files = unpack(
      Buffer.from(((result.payload as SuccessPayload).data as BinaryData).content_base64 ?? '', 'base64'),
    );
    assert.equal(files['widgets/deploy/.env']?.includes(TOKEN), false);
    assert.equal(files['widgets/deploy/.env']?.includes(AWS_KEY), true, 'patterns are off, as asked');
  });

  test('an archive inside an archive is opened too, and one nested too deep is withheld', async () => {
    const inner = zip({ 'inner/.env': `token=${TOKEN}` });
    const result = await download(tarGz({ 'widgets/vendor/inner.zip': inner }), 'main.tar.gz');
    const outer = readTar(
      gunzipSync(Buffer.from(((result.payload as SuccessPayload).data as BinaryData).content_base64 ?? '', 'base64')),
      10,
    );
    const innerZip = outer.find((e) => e.name === 'widgets/vendor/inner.zip')?.data ?? Buffer.alloc(0);
    assert.match(unpack(innerZip)['inner/.env'] ?? '', /token=\[REDACTED sha256:/);

    let deep = zip({ 'x.txt': 'deep' });
    for (let level = 0; level < 3; level++) deep = zip({ [`level${level}.zip`]: deep });
    const refused = await download(deep, 'main.zip');
    const error = (refused.payload as ErrorPayload).error;
    assert.equal(error.kind, 'download_uninspectable');
    assert.match(error.message, /nested more than 3 deep/);
  });

  test('a file of contents that is a zip (base64 in JSON) is opened like a download', async () => {
    server.handle((_req, res) =>
      json(res, 200, {
        type: 'file',
        encoding: 'base64',
        path: 'dist/secrets.zip',
        content: zip(FILES).toString('base64'),
      }),
    );
    const contents = entry({
      operationId: 'repoGetContents',
      path: '/repos/{owner}/{repo}/contents/{filepath}',
      pathParams: ['owner', 'repo', ['filepath', true]],
    });
    const result = await execute(contents, { owner: 'acme', repo: 'widgets', filepath: 'dist/secrets.zip' }, context());
    const payload = result.payload as SuccessPayload;
    const content = (payload.data as { content: string }).content;
    for (const [name, text] of Object.entries(unpack(Buffer.from(content, 'base64')))) assertNoSecret(text, name);
    assert.equal(payload.file_contents?.[0]?.path, 'dist/secrets.zip');
    assert.equal(payload.file_contents?.[0]?.decoded_as, 'archive');
  });
});

describe('what cannot be inspected within the bounds is withheld, not inflated', () => {
  test('a zip bomb (an entry declaring 3 GB) is refused from its header, before anything is inflated', async () => {
    const bomb = Buffer.from(zipSync({ 'bomb.bin': new Uint8Array(1024 * 1024) }, { level: 9 }));
    // The central directory's uncompressed size: were it believed and inflated, 3 GB would be allocated.
    const central = bomb.indexOf(Buffer.from('504b0102', 'hex'));
    bomb.writeUInt32LE(3 * 1024 ** 3, central + 24);
    const before = process.memoryUsage().rss;
    const result = await download(bomb, 'main.zip');
    const error = (result.payload as ErrorPayload).error;
    assert.equal(error.kind, 'download_uninspectable');
    assert.match(
      error.message,
      /bomb\.bin would inflate from \d+ to 3221225472 bytes, more than 100 times \(a zip bomb\)/,
    );
    assert.ok(process.memoryUsage().rss - before < 256 * 1024 * 1024, 'the bomb was inflated');
  });

  test('a zip of 40 MB of zeros is past the ratio and the size bounds, and withheld', async () => {
    const error = ((await download(zeros40, 'main.zip')).payload as ErrorPayload).error;
    assert.equal(error.kind, 'download_uninspectable', error.message);
    assert.match(error.message, /zip bomb/);
  });

  test('a gzip bomb is refused from its declared size; one that lies is cut off at the bound', async () => {
    const bomb = zeros64gz;
    const declared = ((await download(bomb, 'main.tar.gz')).payload as ErrorPayload).error;
    assert.equal(declared.kind, 'download_uninspectable');
    assert.match(declared.message, /says it inflates to 67108864 bytes, past the bounds/);
    const lying = Buffer.from(bomb);
    lying.writeUInt32LE(100, lying.length - 4);
    const cut = ((await download(lying, 'main.tar.gz')).payload as ErrorPayload).error;
    assert.equal(cut.kind, 'download_uninspectable');
    assert.match(cut.message, /inflates past \d+ bytes, past the bounds/);
  });

  test('more entries than the bound allows are withheld', async () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, 'x']));
    const bounds = { maxInflatedBytes: 1024 * 1024, maxEntries: 20, maxRatio: 100, maxDepth: 3 };
    const error = ((await download(zip(many), 'main.zip', { archiveBounds: bounds })).payload as ErrorPayload).error;
    assert.equal(error.kind, 'download_uninspectable');
    assert.match(error.message, /more than 20 entries/);
  });

  test('a git bundle (a pack file) is withheld as uninspectable, whatever it holds', async () => {
    const bundle = Buffer.concat([
      Buffer.from('# v2 git bundle\na94a8fe5ccb19ba61c4c0873d391e987982fbbd3 refs/heads/main\n\n'),
      Buffer.from('PACK\0\0\0\x02\0\0\0\0'),
    ]);
    const error = ((await download(bundle, 'main.bundle')).payload as ErrorPayload).error;
    assert.equal(error.kind, 'download_uninspectable');
    assert.match(error.message, /is a git bundle: .* not inspected/);
    assert.match(error.message, /The request itself was carried out \(HTTP 200\)/);
  });

  test('a damaged archive is withheld, not passed on as bytes', async () => {
    const damaged = zip(FILES).subarray(0, 60);
    const error = ((await download(damaged, 'main.zip')).payload as ErrorPayload).error;
    assert.equal(error.kind, 'download_uninspectable');
  });
});

describe('base64 fields that are not file objects', () => {
  test("a wiki page's content_base64, sidebar and footer are decoded and masked like file contents", async () => {
    const page = `# Deploy\nUse token ${TOKEN}\naws_access_key_id = ${AWS_KEY}\n${PRIVATE_KEY}`;
    server.handle((_req, res) =>
      json(res, 200, {
        title: 'Deploy',
        html_url: 'http://gitea/acme/widgets/wiki/Deploy',
        sub_url: 'Deploy',
        commit_count: 1,
        content_base64: Buffer.from(page).toString('base64'),
        sidebar: Buffer.from(`[[Home]] ${AWS_KEY}`).toString('base64'),
        footer: Buffer.from('plain footer').toString('base64'),
      }),
    );
    const wiki = entry({
      operationId: 'repoGetWikiPage',
      path: '/repos/{owner}/{repo}/wiki/page/{pageName}',
      pathParams: ['owner', 'repo', 'pageName'],
    });
    const result = await execute(wiki, { owner: 'acme', repo: 'widgets', pageName: 'Deploy' }, context());
    const payload = result.payload as SuccessPayload;
    const data = payload.data as Record<string, string>;
    const decoded = Buffer.from(data.content_base64 ?? '', 'base64').toString('utf8');
    assertNoSecret(decoded, 'content_base64');
    assertNoSecret(Buffer.from(data.sidebar ?? '', 'base64').toString('utf8'), 'sidebar');
    assert.match(decoded, /Use token \[REDACTED sha256:/);
    assert.match(decoded, /AKIA…\[MASKED hmac:/);
    assert.equal(Buffer.from(data.footer ?? '', 'base64').toString('utf8'), 'plain footer');
    assert.deepEqual(
      payload.file_contents?.map((f) => [f.path, f.decoded_as, f.changed]),
      [
        ['Deploy', 'text', true],
        ['_Sidebar', 'text', true],
        ['_Footer', 'text', false],
      ],
    );
  });
});
