// Secrets never reach the model: exact redaction with fingerprints, pattern masking and blocking,
// and credential-issuing operations whose fresh credential a person may reveal (reveal_secrets).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execute } from '../src/gitea/executor.js';
import type { ErrorPayload, SuccessPayload } from '../src/gitea/envelope.js';
import { fingerprint, maskFingerprint, redactText, Redactor } from '../src/gitea/redact.js';
import { CREDENTIAL_ISSUING_OPERATIONS, SECRET_PATTERNS } from '../src/gitea/secrets.js';
import { defaultSpecPath } from '../src/shared/paths.js';
import { entry, json, startServer, TOKEN, type TestServer } from './gitea-fixtures.js';
import { prng } from './support/prng.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const context = () => ({ identity: server.identity, login: 'alice' });
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVl';
const PRIVATE_KEY =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----';
const COMMIT_SHA = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3';

const getIssue = entry({ path: '/repos/{owner}/{repo}/issues/{index}', pathParams: ['owner', 'repo', 'index'] });
const issueArgs = { owner: 'o', repo: 'r', index: 1 };

function answer(status: number, data: unknown): void {
  server.handle((_req, res) => json(res, status, data));
}

describe('exact redaction', () => {
  test('a webhook authorization_header echoed back is redacted with its fingerprint', async () => {
    const secretHeader = 'Bearer s3cr3t-hook-value';
    answer(201, {
      id: 4,
      type: 'gitea',
      authorization_header: secretHeader,
      config: { url: 'https://ci.example/hook' },
    });
    const createHook = entry({
      method: 'POST',
      operationId: 'repoCreateHook',
      path: '/repos/{owner}/{repo}/hooks',
      pathParams: ['owner', 'repo'],
      body: true,
    });
    const result = await execute(
      createHook,
      {
        owner: 'o',
        repo: 'r',
        body: { type: 'gitea', authorization_header: secretHeader, config: { url: 'https://ci.example/hook' } },
      },
      context(),
    );
    const payload = result.payload as SuccessPayload;
    assert.equal(
      (payload.data as { authorization_header: string }).authorization_header,
      `[REDACTED ${fingerprint(secretHeader)}]`,
    );
    assert.equal(JSON.stringify(payload).includes('s3cr3t-hook-value'), false);
  });

  const cases = [
    { what: "the identity's token in a value", data: { note: `token was ${TOKEN}` }, secret: TOKEN, options: {} },
    { what: "the identity's token as a key", data: { [TOKEN]: 1 }, secret: TOKEN, options: {} },
    {
      what: 'a server secret (mode off)',
      data: { x: 'value my-oauth-client-secret here' },
      secret: 'my-oauth-client-secret',
      options: { serverSecrets: ['my-oauth-client-secret'], secretDetectionMode: 'off' as const },
    },
  ];
  for (const c of cases) {
    test(`redacts ${c.what}`, async () => {
      answer(200, c.data);
      const payload = (await execute(getIssue, issueArgs, context(), c.options)).payload;
      const text = JSON.stringify(payload);
      assert.equal(text.includes(c.secret), false);
      assert.ok(text.includes(`[REDACTED ${fingerprint(c.secret)}]`));
    });
  }

  test('secrets nested in the request body are redacted from the result, short ones are not', async () => {
    const migrate = entry({ method: 'POST', path: '/repos/migrate', body: true });
    answer(201, {
      clone_url: 'https://u:mirror-pass-123@example/x.git',
      note: 'abc stays',
      other: 'deep-secret-value',
    });
    const body = {
      auth_password: 'mirror-pass-123',
      nested: [{ options: { token: 'deep-secret-value' } }],
      password: 'abc',
    };
    const payload = (await execute(migrate, { body }, context(), { secretDetectionMode: 'off' }))
      .payload as SuccessPayload;
    const data = payload.data as Record<string, string>;
    assert.equal(data.clone_url, `https://u:[REDACTED ${fingerprint('mirror-pass-123')}]@example/x.git`);
    assert.equal(data.other, `[REDACTED ${fingerprint('deep-secret-value')}]`);
    assert.equal(data.note, 'abc stays');
  });

  /** `text` with the character at `at` written as a JSON escape, as Gitea or a stored JSON text may quote it. */
  const escapedAt = (text: string, at: number, escape: string): string =>
    `${text.slice(0, at)}${escape}${text.slice(at + 1)}`;
  const deepJson = (inner: string): string => `${'['.repeat(120)}${inner}${']'.repeat(120)}`;
  const escapedBodies = [
    {
      what: 'JSON nested too deep to parse, a \\u escape inside the token',
      status: 200,
      body: deepJson(`"x ${escapedAt(TOKEN, 5, '\\u0035')}"`),
      secret: TOKEN,
      options: {},
    },
    {
      what: 'invalid JSON, a \\u escape with upper-case hex inside a server secret',
      status: 200,
      body: `{"a":"${escapedAt('Zebra-key-9', 0, '\\u005A')}",}`,
      secret: 'Zebra-key-9',
      options: { serverSecrets: ['Zebra-key-9'] },
    },
    {
      what: 'an error quoting invalid JSON, a \\" inside a server secret',
      status: 500,
      body: `{"message":"bad ${escapedAt('pa"ss-word-42', 2, '\\"')}"`,
      secret: 'pa"ss-word-42',
      options: { serverSecrets: ['pa"ss-word-42'] },
    },
    {
      what: 'JSON nested too deep, a \\/ inside a server secret',
      status: 200,
      body: deepJson(`"https:\\/\\/u:${'s3cret/path'.replace('/', '\\/')}@h"`),
      secret: 's3cret/path',
      options: { serverSecrets: ['s3cret/path'], secretDetectionMode: 'off' as const },
    },
  ];
  for (const c of escapedBodies) {
    test(`redacts a secret written with JSON escapes in ${c.what}`, async () => {
      server.handle((_req, res) => {
        res.writeHead(c.status, { 'content-type': 'application/json' });
        res.end(c.body);
      });
      const payload = (await execute(getIssue, issueArgs, context(), c.options)).payload;
      const text = JSON.stringify(payload);
      assert.ok(text.includes(`[REDACTED ${fingerprint(c.secret)}]`), text.slice(0, 300));
      assert.equal(text.includes(c.secret.slice(-8)), false, 'no tail of the secret is left');
    });
  }

  test('a token inside a binary body is redacted in its bytes', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`token=${TOKEN}`), Buffer.from([0xff])]));
    });
    const payload = (await execute(getIssue, issueArgs, context())).payload as SuccessPayload;
    const content = Buffer.from((payload.data as { content_base64: string }).content_base64, 'base64').toString(
      'latin1',
    );
    assert.equal(content.includes(TOKEN), false);
    assert.ok(content.includes(`[REDACTED ${fingerprint(TOKEN)}]`));
  });

  test("an Actions secret's data is redacted at any length", async () => {
    const putSecret = entry({
      method: 'PUT',
      operationId: 'updateRepoSecret',
      path: '/repos/{owner}/{repo}/actions/secrets/{secretname}',
      pathParams: ['owner', 'repo', 'secretname'],
      body: true,
    });
    answer(400, { message: 'cannot store value xy9 for secret' });
    const payload = (
      await execute(putSecret, { owner: 'o', repo: 'r', secretname: 'S', body: { data: 'xy9' } }, context())
    ).payload as ErrorPayload;
    assert.equal(payload.error.message, `cannot store value [REDACTED ${fingerprint('xy9')}] for secret`);
  });
});

describe('pattern masking', () => {
  const issueBody = `Deploy with ${JWT}\nand key:\n${PRIVATE_KEY}\nfixed in ${COMMIT_SHA}`;

  test('mask mode keeps four characters and a fingerprint of a JWT and a private key, and leaves commit SHAs', async () => {
    answer(200, { number: 1, body: issueBody, merge_commit_sha: COMMIT_SHA });
    const payload = (await execute(getIssue, issueArgs, context())).payload as SuccessPayload;
    const data = payload.data as { body: string; merge_commit_sha: string };
    assert.equal(data.body.includes(JWT), false);
    assert.equal(data.body.includes('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ'), false);
    assert.ok(data.body.includes(`eyJh…[MASKED ${maskFingerprint(JWT)}]`));
    assert.ok(data.body.includes(`----…[MASKED ${maskFingerprint(PRIVATE_KEY)}]`));
    assert.ok(data.body.includes(`fixed in ${COMMIT_SHA}`));
    assert.equal(data.merge_commit_sha, COMMIT_SHA);
  });

  test('block mode withholds the whole result and names only the kinds found', async () => {
    answer(201, { number: 1, body: issueBody });
    const createIssue = entry({
      method: 'POST',
      path: '/repos/{owner}/{repo}/issues',
      pathParams: ['owner', 'repo'],
      body: true,
    });
    const result = await execute(createIssue, { owner: 'o', repo: 'r', body: { title: 't' } }, context(), {
      secretDetectionMode: 'block',
    });
    const payload = result.payload as ErrorPayload;
    assert.equal(result.isError, true);
    assert.equal(payload.error.kind, 'secret_blocked');
    assert.equal(payload.error.status, 201);
    assert.match(payload.error.message, /jwt, private_key/);
    assert.match(payload.error.message, /carried out/);
    assert.equal(JSON.stringify(payload).includes('eyJzdWIi'), false);
  });

  const shapes = [
    { kind: 'aws_access_key', text: 'key AKIAIOSFODNN7EXAMPLE here', secret: 'AKIAIOSFODNN7EXAMPLE' },
    { kind: 'github_token', text: `use ghp_${'a1B2'.repeat(9)} now`, secret: `ghp_${'a1B2'.repeat(9)}` },
    { kind: 'slack_token', text: 'xoxb-123456789012-abcdefghij', secret: 'xoxb-123456789012-abcdefghij' },
    { kind: 'google_api_key', text: `AIza${'Sy0_'.repeat(8)}abc`, secret: `AIza${'Sy0_'.repeat(8)}abc` },
    { kind: 'stripe_key', text: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', secret: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc' },
    { kind: 'gitea token after a label', text: `token: ${COMMIT_SHA}`, secret: COMMIT_SHA },
    { kind: 'assignment', text: 'api_key=Zx81hd72kq0pW', secret: 'Zx81hd72kq0pW' },
    { kind: 'upper-case assignment', text: 'export API_KEY=Zx81hd72kq0pW', secret: 'Zx81hd72kq0pW' },
    { kind: 'authorization header', text: 'Authorization: Bearer abc.def-123', secret: 'abc.def-123' },
  ];
  for (const shape of shapes) {
    test(`masks ${shape.kind}`, () => {
      const masked = redactText(shape.text, []);
      assert.equal(masked.includes(shape.secret), false, masked);
      assert.ok(masked.includes(`${shape.secret.slice(0, 4)}…[MASKED ${maskFingerprint(shape.secret)}]`), masked);
    });
  }

  test('a masked value carries no plain hash of itself, so a short one cannot be recovered by trying candidates', () => {
    const masked = redactText('password=Summer2024', []);
    assert.equal(masked, `password=Summ…[MASKED ${maskFingerprint('Summer2024')}]`);
    assert.equal(masked.includes(fingerprint('Summer2024').slice('sha256:'.length)), false);
  });

  const harmless = [
    'commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 landed',
    'password: required',
    'token: ${{ secrets.GITEA_TOKEN }}',
    'the sha1 is deadbeef',
  ];
  for (const text of harmless) {
    test(`leaves "${text}" alone`, () => {
      assert.equal(redactText(text, []), text);
    });
  }

  test('values under secret-named keys are masked in listings', async () => {
    answer(200, [{ id: 1, authorization_header: 'Bearer other-hook-secret' }]);
    const payload = (await execute(entry({ path: '/repos/o/r/hooks' }), {}, context())).payload as SuccessPayload;
    assert.equal(JSON.stringify(payload).includes('other-hook-secret'), false);
  });

  test('a masked credential inside a binary body keeps its ellipsis as UTF-8, not as a stray byte', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end('api_key=Zx81hd72kq0pW');
    });
    const payload = (await execute(getIssue, issueArgs, context())).payload as SuccessPayload;
    const content = Buffer.from((payload.data as { content_base64: string }).content_base64, 'base64').toString('utf8');
    assert.equal(content, `api_key=Zx81…[MASKED ${maskFingerprint('Zx81hd72kq0pW')}]`);
  });

  test('an Authorization header in a Go header map quoted by an error is removed, whatever its value', async () => {
    answer(500, { message: 'proxy failed: map[Accept:["json"]] {"Authorization":["token other-users-secret-value"]}' });
    const payload = (await execute(getIssue, issueArgs, context(), { secretDetectionMode: 'off' }))
      .payload as ErrorPayload;
    assert.equal(payload.error.message.includes('other-users-secret-value'), false, payload.error.message);
    assert.match(payload.error.message, /"Authorization":\["\[REDACTED\]"\]/);
  });

  test('error messages are masked like results', async () => {
    answer(422, { message: `invalid ${JWT}` });
    const payload = (await execute(getIssue, issueArgs, context())).payload as ErrorPayload;
    assert.equal(payload.error.message, `invalid eyJh…[MASKED ${maskFingerprint(JWT)}]`);
  });
});

describe('credential-issuing operations', () => {
  test('userCreateToken redacts the fresh token, even in block mode, and keeps it for a person to reveal', async () => {
    const fresh = 'f'.repeat(8) + COMMIT_SHA.slice(8);
    answer(201, { id: 5, name: 'ci', sha1: fresh, token_last_eight: fresh.slice(-8), scopes: ['read:repository'] });
    const createToken = entry({
      method: 'POST',
      operationId: 'userCreateToken',
      path: '/users/{username}/tokens',
      pathParams: ['username'],
      body: true,
    });
    const result = await execute(
      createToken,
      { username: 'alice', body: { name: 'ci', scopes: ['read:repository'] } },
      context(),
      { secretDetectionMode: 'block' },
    );
    assert.equal(result.isError, false);
    const payload = result.payload as SuccessPayload;
    assert.equal((payload.data as { sha1: string }).sha1, `[REDACTED ${fingerprint(fresh)}]`);
    assert.deepEqual(result.isError ? [] : result.hidden, [
      { shown: `[REDACTED ${fingerprint(fresh)}]`, value: fresh, fingerprint: fingerprint(fresh) },
    ]);
    assert.equal(payload.secrets?.hidden, 1);
    assert.match(payload.secrets?.how_to_see ?? '', /reveal_secrets: true; a person is asked/);
    assert.ok(!JSON.stringify(payload).includes(fresh), 'the fresh token is nowhere in the result');
  });

  test("a runner registration token is redacted for a person to reveal; the caller's own token never is", async () => {
    answer(201, { token: 'AAbbCCddEEffGG1122334455', note: TOKEN });
    const createRunnerToken = entry({
      method: 'POST',
      operationId: 'repoCreateRunnerRegistrationToken',
      path: '/repos/{owner}/{repo}/actions/runners/registration-token',
      pathParams: ['owner', 'repo'],
    });
    const result = await execute(createRunnerToken, { owner: 'o', repo: 'r' }, context());
    const payload = result.payload as SuccessPayload;
    const fresh = 'AAbbCCddEEffGG1122334455';
    assert.deepEqual(payload.data, {
      token: `[REDACTED ${fingerprint(fresh)}]`,
      note: `[REDACTED ${fingerprint(TOKEN)}]`,
    });
    assert.deepEqual(
      (result.isError ? [] : (result.hidden ?? [])).map((h) => h.value),
      [fresh],
      'only the fresh credential is revealable',
    );
  });

  test('every listed operation exists in the pinned Gitea spec', () => {
    const spec = JSON.parse(readFileSync(defaultSpecPath(), 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const ids = new Set(Object.values(spec.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId)));
    for (const id of CREDENTIAL_ISSUING_OPERATIONS) assert.ok(ids.has(id), id);
  });
});

describe('file contents: base64 text decoded, redacted and re-encoded; binary kept', () => {
  const getContents = entry({
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    pathParams: ['owner', 'repo', 'filepath'],
  });
  const args = { owner: 'o', repo: 'r', filepath: 'config/.env' };
  const AWS = 'AKIAIOSFODNN7EXAMPLE';
  const secretsFile = [
    `GITEA_TOKEN=${TOKEN}`,
    `AWS_ACCESS_KEY_ID=${AWS}`,
    'password: Hunter2Summer2024',
    PRIVATE_KEY,
    '',
  ].join('\n');
  const contentsAnswer = (bytes: Buffer, path = 'config/.env') => ({
    name: path.split('/').at(-1),
    path,
    type: 'file',
    encoding: 'base64',
    size: bytes.length,
    content: bytes.toString('base64'),
  });
  const decodedContent = (payload: SuccessPayload) =>
    Buffer.from((payload.data as { content: string }).content, 'base64');

  test('secrets in a base64 text file do not come back, in any form; the envelope says it was decoded and changed', async () => {
    answer(200, contentsAnswer(Buffer.from(secretsFile)));
    const payload = (await execute(getContents, args, context())).payload as SuccessPayload;
    const text = decodedContent(payload).toString('utf8');
    for (const secret of [TOKEN, AWS, 'Hunter2Summer2024', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ']) {
      assert.equal(text.includes(secret), false, `${secret.slice(0, 8)}… came back in the file`);
      assert.equal(JSON.stringify(payload).includes(secret), false);
    }
    assert.ok(text.includes(`[REDACTED ${fingerprint(TOKEN)}]`));
    assert.match(text, /AWS_ACCESS_KEY_ID=AKIA…\[MASKED hmac:/);
    assert.deepEqual(payload.file_contents, [{ path: 'config/.env', decoded_as: 'text', changed: true }]);
  });

  test('in block mode a base64 text file with a credential is withheld', async () => {
    answer(200, contentsAnswer(Buffer.from(`AWS_ACCESS_KEY_ID=${AWS}\n`)));
    const result = await execute(getContents, args, context(), { secretDetectionMode: 'block' });
    assert.equal(result.isError, true);
    assert.equal((result.payload as ErrorPayload).error.kind, 'secret_blocked');
  });

  test('a binary file comes back byte for byte, and the envelope says it was kept as binary', async () => {
    const png = Buffer.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe,
    ]);
    answer(200, contentsAnswer(png, 'logo.png'));
    const payload = (await execute(getContents, { ...args, filepath: 'logo.png' }, context()))
      .payload as SuccessPayload;
    assert.deepEqual(decodedContent(payload), png);
    assert.equal((payload.data as { content: string }).content, png.toString('base64'));
    assert.deepEqual(payload.file_contents, [{ path: 'logo.png', decoded_as: 'binary', changed: false }]);
  });

  test('a text file without secrets comes back as it was sent', async () => {
    const readme = Buffer.from('# widgets\n\nNothing secret here.\n');
    answer(200, contentsAnswer(readme, 'README.md'));
    const payload = (await execute(getContents, { ...args, filepath: 'README.md' }, context()))
      .payload as SuccessPayload;
    assert.equal((payload.data as { content: string }).content, readme.toString('base64'));
    assert.deepEqual(payload.file_contents, [{ path: 'README.md', decoded_as: 'text', changed: false }]);
  });

  test('a raw file served as bytes that is text is redacted as text and said so', async () => {
    const raw = entry({
      path: '/repos/{owner}/{repo}/raw/{filepath}',
      pathParams: ['owner', 'repo', 'filepath'],
      produces: ['application/octet-stream'],
    });
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(secretsFile);
    });
    const payload = (await execute(raw, args, context())).payload as SuccessPayload;
    const data = payload.data as { content_base64: string; decoded_as: string; changed: boolean };
    assert.deepEqual({ decoded_as: data.decoded_as, changed: data.changed }, { decoded_as: 'text', changed: true });
    const text = Buffer.from(data.content_base64, 'base64').toString('utf8');
    assert.equal(text.includes(TOKEN) || text.includes(AWS) || text.includes('Hunter2Summer2024'), false);
  });
});

describe("the caller's token in every encoding a result can carry", () => {
  const forms: { name: string; make: (token: string) => string }[] = [
    {
      name: 'base64 (Basic credentials)',
      make: (t) => `Authorization: Basic ${Buffer.from(`alice:${t}`).toString('base64')}`,
    },
    { name: 'base64 at offset 0', make: (t) => Buffer.from(t).toString('base64') },
    { name: 'base64 at offset 1', make: (t) => Buffer.from(`x${t}`).toString('base64') },
    { name: 'base64 at offset 2', make: (t) => Buffer.from(`xy${t}!`).toString('base64') },
    { name: 'URL-safe base64', make: (t) => Buffer.from(`??${t}??`).toString('base64url') },
    { name: 'percent-encoded', make: (t) => `https://example/?q=${encodeURIComponent(`tok ${t}`)}` },
    {
      name: 'JSON-escaped',
      make: (t) => `{"t":"${[...t].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}`,
    },
  ];
  for (const { name, make } of forms) {
    test(`${name}: no part of the token's encoding is left`, async () => {
      const carried = make(TOKEN);
      answer(200, { note: carried });
      const payload = (await execute(getIssue, issueArgs, context(), { secretDetectionMode: 'off' }))
        .payload as SuccessPayload;
      const note = (payload.data as { note: string }).note;
      assert.notEqual(note, carried, 'the result came back unchanged');
      assert.ok(note.includes(`[REDACTED ${fingerprint(TOKEN)}]`), note);
      const base64Core = Buffer.from(TOKEN).toString('base64').slice(4, 40);
      assert.equal(note.includes(base64Core) || note.includes(TOKEN), false);
    });
  }
});

describe('incoming-webhook URLs are masked', () => {
  const urls: { provider: string; url: string; secret: string }[] = [
    {
      provider: 'Slack',
      url: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
      secret: 'XXXXXXXXXXXXXXXXXXXXXXXX',
    },
    {
      provider: 'Slack workflow',
      url: 'https://hooks.slack.com/workflows/T0123ABC/A0123ABC/123456789/abcDEF123ghi',
      secret: 'abcDEF123ghi',
    },
    {
      provider: 'Discord',
      url: 'https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKlMnOpQrStUvWxYz_0123456789',
      secret: 'AbCdEf-GhIjKlMnOpQrStUvWxYz_0123456789',
    },
    {
      provider: 'Discord (legacy host)',
      url: 'https://discordapp.com/api/webhooks/1234567890/tokenpart-abcdefghij',
      secret: 'tokenpart-abcdefghij',
    },
    {
      provider: 'Microsoft Teams',
      url: 'https://contoso.webhook.office.com/webhookb2/1111-2222@3333-4444/IncomingWebhook/5555aaaa6666/7777-8888',
      secret: '5555aaaa6666',
    },
    {
      provider: 'Teams workflows (Power Automate)',
      url: 'https://prod-01.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=Zx81hd72kq0pWabcdef',
      secret: 'Zx81hd72kq0pWabcdef',
    },
    {
      provider: 'Google Chat',
      url: 'https://chat.googleapis.com/v1/spaces/AAAA1234/messages?key=AIzaSyDdI0hCZtE6vySjMm&token=tok3nValue123',
      secret: 'tok3nValue123',
    },
    {
      provider: 'Feishu',
      url: 'https://open.feishu.cn/open-apis/bot/v2/hook/0f8e7d6c-5b4a-3928-1716-abcdef012345',
      secret: 'abcdef012345',
    },
    {
      provider: 'DingTalk',
      url: 'https://oapi.dingtalk.com/robot/send?access_token=abcdef0123456789abcdef',
      secret: 'abcdef0123456789abcdef',
    },
    {
      provider: 'WeCom',
      url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa',
      secret: '0ec2sifa5aaa',
    },
    {
      provider: 'Telegram',
      url: 'https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage',
      secret: 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
    },
    {
      provider: 'Mattermost',
      url: 'https://chat.example.org/hooks/xfjeu3bxo7bmbpgrzh7ihk3mpa',
      secret: 'xfjeu3bxo7bmbpgrzh7ihk3mpa',
    },
  ];
  const listHooks = entry({ path: '/repos/{owner}/{repo}/hooks', pathParams: ['owner', 'repo'] });
  for (const { provider, url, secret } of urls) {
    test(`${provider}: the secret part is masked in a hook's config.url, the host stays readable`, async () => {
      answer(200, [{ id: 1, type: 'slack', config: { url, content_type: 'json' }, active: true }]);
      const payload = (await execute(listHooks, { owner: 'o', repo: 'r' }, context())).payload as SuccessPayload;
      const shown = (payload.data as { config: { url: string } }[])[0]!.config.url;
      assert.equal(shown.includes(secret), false, shown);
      assert.match(shown, /MASKED hmac:/);
      assert.ok(shown.startsWith(url.slice(0, url.indexOf('/', 8))), shown);
    });
  }

  test('an ordinary webhook URL (a CI endpoint) is left readable', async () => {
    answer(200, [{ id: 1, type: 'gitea', config: { url: 'https://ci.example.com/gitea/hook', content_type: 'json' } }]);
    const payload = (await execute(listHooks, { owner: 'o', repo: 'r' }, context())).payload as SuccessPayload;
    assert.equal((payload.data as { config: { url: string } }[])[0]!.config.url, 'https://ci.example.com/gitea/hook');
  });
});

describe('one search over a whole result', () => {
  // Redactor.value searches all of a result's strings joined, and walks string by string only on a
  // hit. That is sound only while a match inside one string is also a match inside the joined text.
  test('no secret pattern has an anchor or a look-behind or negative look-ahead', () => {
    for (const { kind, source } of SECRET_PATTERNS) {
      const outsideClasses = source.replace(/\\./g, '').replace(/\[[^\]]*\]/g, '');
      assert.doesNotMatch(outsideClasses, /[\^$]|\(\?<[=!]|\(\?!/, kind);
    }
  });

  const fragments = [
    'ordinary text',
    COMMIT_SHA,
    TOKEN,
    Buffer.from(`user:${TOKEN}`).toString('base64'),
    `x${encodeURIComponent(TOKEN)}y`,
    JWT,
    PRIVATE_KEY,
    '-----BEGIN RSA PRIVATE KEY-----',
    'AKIAIOSFODNN7EXAMPLE',
    'Authorization:',
    'token abcd1234efgh',
    'password: Summer2024x',
    'password: required',
    'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX',
    'https://ci.example.com/hook',
    '',
  ];
  const keys = ['name', 'body', 'password', 'config', 'url', 'encoding', 'content', 'token', 'items'];

  function randomValue(random: () => number, depth: number): unknown {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const roll = random();
    if (depth > 3 || roll < 0.4) return roll < 0.1 ? Math.floor(random() * 100) : pick(fragments);
    if (roll < 0.55) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    const value: Record<string, unknown> = {};
    for (let i = Math.floor(random() * 4); i > 0; i--) value[pick(keys)] = randomValue(random, depth + 1);
    if (random() < 0.05)
      Object.assign(value, { encoding: 'base64', content: Buffer.from(pick(fragments)).toString('base64') });
    return value;
  }

  test('redacts a random result exactly as searching string by string does (property, 600 results)', () => {
    const random = prng(20261201);
    const outcomes = { changed: 0, unchanged: 0 };
    for (let i = 0; i < 600; i++) {
      const value = randomValue(random, 0);
      for (const patterns of [true, false]) {
        const searched = new Redactor([TOKEN], { patterns }).value(value);
        // A file object around the value sends it down the string-by-string walk in both modes.
        const walked = new Redactor([TOKEN], { patterns }).value({ encoding: 'base64', content: '', value }) as {
          value: unknown;
        };
        assert.deepEqual(searched, walked.value, JSON.stringify(value));
        outcomes[JSON.stringify(searched) === JSON.stringify(value) ? 'unchanged' : 'changed']++;
      }
    }
    // Both paths were taken many times, or the comparison proved little.
    assert.ok(outcomes.changed > 200 && outcomes.unchanged > 200, JSON.stringify(outcomes));
  });
});
