// reveal_secrets: a fresh credential and the values pattern masking hid are shown in clear only after
// a person confirmed the exact operation, with the fingerprints in the question; without the option
// the result keeps them redacted and says how to ask. The namespace's own token is never revealable.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprint, maskFingerprint, Redactor } from '../src/gitea/redact.js';
import { FRESH_CREDENTIAL_FIELDS, hiddenIn, hiddenValues, revealIn, withRevealOption } from '../src/gitea/reveal.js';
import { CREDENTIAL_ISSUING_OPERATIONS } from '../src/gitea/secrets.js';
import { loadCatalog } from '../src/catalog/load.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { answerToolCall, type ToolCallAnswer } from '../src/server/call/pipeline.js';
import { ANSWER_KEY, FIRST_ROUND, type CallRound } from '../src/server/confirm/round.js';
import type { Namespace } from '../src/server/session.js';
import { defaultSpecPath } from '../src/shared/paths.js';
import { namespaceEnv, payloadOf, tempDir } from './support/namespace.js';
import { openNamespace } from './support/in-process.js';
import { askingRound, answering } from './support/rounds.js';

describe('what may be revealed, and how it is put back', () => {
  test('the redactor keeps masked values and revealable credentials, never the exact secrets', () => {
    const token = 'a'.repeat(40);
    const fresh = 'f'.repeat(40);
    const redactor = new Redactor([token], { patterns: true, revealable: [fresh, token] });
    const out = redactor.value({ sha1: fresh, note: `token ${token}`, config: 'password = Summer2024xy' }) as Record<
      string,
      string
    >;
    assert.equal(out.sha1, `[REDACTED ${fingerprint(fresh)}]`);
    assert.equal(out.note, `token [REDACTED ${fingerprint(token)}]`);
    assert.equal(out.config, `password = Summ…[MASKED ${maskFingerprint('Summer2024xy')}]`);
    const hidden = hiddenValues(redactor.hidden);
    assert.deepEqual(hidden.map((h) => h.value).sort(), ['Summer2024xy', fresh].sort());
    assert.ok(!hidden.some((h) => h.value === token), 'the namespace token is never revealable');
    assert.deepEqual(revealIn(out, hidden), {
      sha1: fresh,
      note: `token [REDACTED ${fingerprint(token)}]`,
      config: 'password = Summer2024xy',
    });
  });

  test('a text file inside a result is revealed inside its base64; a binary file is left byte for byte', () => {
    const redactor = new Redactor([], { patterns: true });
    const text = Buffer.from('API_KEY=abc123def456ghi\n').toString('base64');
    const binary = Buffer.from([0, 1, 2, 0xff, 0x41, 0x50]).toString('base64');
    const out = redactor.value([
      { path: 'a.env', encoding: 'base64', content: text },
      { path: 'b.bin', encoding: 'base64', content: binary },
    ]) as Array<{ content: string }>;
    assert.notEqual(out[0]?.content, text, 'masked inside the file');
    const hidden = hiddenValues(redactor.hidden);
    assert.equal(hiddenIn(out, hidden).length, 1);
    const back = revealIn(out, hidden) as Array<{ content: string }>;
    assert.equal(back[0]?.content, text);
    assert.equal(back[1]?.content, binary);
    assert.deepEqual(hiddenIn([{ other: 'nothing here' }], hidden), []);
  });

  test('every credential-issuing operation names where its fresh credential is, and the spec has that field', () => {
    assert.deepEqual([...FRESH_CREDENTIAL_FIELDS.keys()].sort(), [...CREDENTIAL_ISSUING_OPERATIONS].sort());
    const spec = JSON.parse(readFileSync(defaultSpecPath(), 'utf8')) as {
      paths: Record<
        string,
        Record<string, { operationId?: string; responses?: Record<string, { schema?: { $ref?: string } }> }>
      >;
      definitions: Record<string, { properties?: Record<string, unknown> }>;
      responses: Record<string, { schema?: { $ref?: string } }>;
    };
    for (const ops of Object.values(spec.paths))
      for (const op of Object.values(ops)) {
        const fields = FRESH_CREDENTIAL_FIELDS.get(op.operationId ?? '');
        if (!fields) continue;
        const ok = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
        const ref = ok?.schema?.$ref ?? (ok as { $ref?: string } | undefined)?.$ref;
        const response = ref?.startsWith('#/responses/') ? spec.responses[ref.slice(12)] : undefined;
        const named = response ? response.schema?.$ref : ref;
        const definition = spec.definitions[named?.replace('#/definitions/', '') ?? ''];
        // The spec describes RegistrationToken as a header; Gitea answers it as the JSON field of that name.
        const header = (response as { headers?: Record<string, unknown> } | undefined)?.headers;
        for (const field of fields)
          assert.ok(definition?.properties?.[field] ?? header?.[field], `${op.operationId}: ${field} in ${ref}`);
      }
  });

  test('credential-issuing tools list reveal_secrets; others do not', () => {
    const { entries } = loadCatalog();
    const create = entries.find((e) => e.operationId === 'userCreateOAuth2Application');
    const read = entries.find((e) => e.operationId === 'repoGetContents');
    assert.ok(create && read);
    assert.ok((withRevealOption(create, create.inputSchema).properties as Record<string, unknown>).reveal_secrets);
    assert.equal(
      (withRevealOption(read, read.inputSchema).properties as Record<string, unknown>).reveal_secrets,
      undefined,
    );
  });
});

describe('reveal_secrets through the pipeline, against the sandbox', () => {
  const dir = tempDir('warden-reveal-');
  let sandbox: Sandbox;
  let owner: Namespace;
  let author: Namespace;
  const FORM: CallRound = askingRound();
  const yes = { action: 'accept', content: { [ANSWER_KEY]: true } };
  const retry = (first: ToolCallAnswer, response: unknown): CallRound => answering(first, response, FORM);
  const payload = (answer: ToolCallAnswer) => payloadOf(answer.result);

  before(async () => {
    sandbox = await startSandbox();
    const load = (profile: string, n: number) =>
      openNamespace(
        namespaceEnv(sandbox, profile, {
          auditLog: join(dir.path, `${n}.jsonl`),
          extra: { OAUTH_STORE: join(dir.path, 'state.sqlite'), TOOLSETS: 'all' },
        }),
      );
    [owner, author] = await Promise.all([load('gitea-owner', 1), load('gitea-author', 2)]);
    // A configuration file with a credential in it, and one quoting the author's own token.
    const put = (path: string, content: string) =>
      fetch(`${sandbox.url}/api/v1/repos/acme/gadgets/contents/${path}`, {
        method: 'POST',
        headers: { authorization: `token ${sandbox.users.admin?.token ?? ''}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: Buffer.from(content).toString('base64'), message: `Add ${path}` }),
      });
    assert.equal((await put('deploy.env', 'API_KEY=abc123def456ghi\n')).status, 201);
    assert.equal((await put('leak.txt', `token: ${sandbox.users.alice?.token ?? ''}\n`)).status, 201);
  });

  after(async () => {
    await owner?.session.audit.close();
    await author?.session.audit.close();
    await owner?.session.confirm.close();
    await author?.session.confirm.close();
    await sandbox?.close();
    dir.dispose();
  });

  const createApp = (name: string, reveal: boolean) => ({
    body: { name, redirect_uris: ['https://ci.example/cb'], confidential_client: true },
    ...(reveal ? { reveal_secrets: true } : {}),
  });
  const secretOf = (name: string) => sandbox.state.oauth2Apps.find((app) => app.name === name)?.clientSecret ?? '';
  const creations = () =>
    sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/user/applications/oauth2').length;

  test('without the option the fresh client secret stays redacted, and the result says how to ask', async () => {
    const answer = await answerToolCall(owner, 'gitea_oauth2_create', createApp('plain', false), FORM);
    assert.equal(answer.ask, undefined);
    const secret = secretOf('plain');
    assert.ok(secret.length > 8);
    assert.equal(payload(answer).data.client_secret, `[REDACTED ${fingerprint(secret)}]`);
    assert.match(payload(answer).secrets.how_to_see, /reveal_secrets: true/);
    assert.ok(!JSON.stringify(answer.result).includes(secret));
  });

  test('with it, the person sees the fingerprint and confirms; the secret is shown, and the call ran once', async () => {
    const before = creations();
    const first = await answerToolCall(owner, 'gitea_oauth2_create', createApp('revealed', true), FORM);
    const secret = secretOf('revealed');
    const message = first.ask?.requests[ANSWER_KEY]?.message ?? '';
    assert.match(message, /^Show 1 hidden value of this result to the agent, in clear\?/);
    assert.ok(message.includes(`[REDACTED ${fingerprint(secret)}]`), message);
    assert.match(message, /Operation: gitea\.oauth2\.create, through gitea_oauth2_create/);
    assert.ok(
      !message.includes(secret) && !(first.ask?.state ?? '').includes(secret),
      'neither the question nor the state shows it',
    );
    assert.ok(!JSON.stringify(first.result).includes(secret));
    const second = await answerToolCall(owner, 'gitea_oauth2_create', createApp('revealed', true), retry(first, yes));
    assert.equal(creations() - before, 1, 'the retry did not create a second application');
    assert.equal(payload(second).data.client_secret, secret);
    assert.deepEqual(payload(second).revealed, [fingerprint(secret)]);
    const events = readFileSync(owner.session.audit.path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>)
      .filter((e) => e.phase === 'result')
      .slice(-2);
    assert.deepEqual(
      events.map((e) => [e.reason, e.evidence?.reveal]),
      [
        ['allowed', 'asked'],
        ['secrets_revealed', 'confirmed_by:at_client'],
      ],
    );
    assert.ok(!readFileSync(owner.session.audit.path, 'utf8').includes(secret), 'the audit log never holds it');
    const replayed = await answerToolCall(owner, 'gitea_oauth2_create', createApp('revealed', true), retry(first, yes));
    assert.equal(payload(replayed).error?.kind, 'confirmation_replayed');
    assert.equal(creations() - before, 1);
  });

  test('declined, the result stands as it was, masked', async () => {
    const first = await answerToolCall(owner, 'gitea_oauth2_create', createApp('declined', true), FORM);
    const second = await answerToolCall(
      owner,
      'gitea_oauth2_create',
      createApp('declined', true),
      retry(first, { action: 'decline' }),
    );
    assert.equal(payload(second).data.client_secret, `[REDACTED ${fingerprint(secretOf('declined'))}]`);
    assert.match(payload(second).secrets.how_to_see, /declined/);
  });

  test('a client that cannot ask gets the masked result, told that revealing needs elicitation', async () => {
    const answer = await answerToolCall(owner, 'gitea_oauth2_create', createApp('no-ask', true), FIRST_ROUND);
    assert.equal(answer.ask, undefined);
    assert.equal(payload(answer).data.client_secret, `[REDACTED ${fingerprint(secretOf('no-ask'))}]`);
    assert.match(payload(answer).secrets.how_to_see, /elicitation/);
  });

  test('a masked value in a file read is shown after the yes; the state does not answer another call', async () => {
    const args = { owner: 'acme', repo: 'gadgets', filepath: 'deploy.env', reveal_secrets: true };
    const first = await answerToolCall(author, 'gitea_contents_get', args, FORM);
    const content = (answer: ToolCallAnswer) => Buffer.from(payload(answer).data.content, 'base64').toString('utf8');
    assert.match(content(first), /^API_KEY=abc1…\[MASKED hmac:[0-9a-f]{12}\]/);
    assert.match(first.ask?.requests[ANSWER_KEY]?.message ?? '', /abc1…\[MASKED hmac:[0-9a-f]{12}\]/);
    const other = await answerToolCall(
      author,
      'gitea_contents_get',
      { ...args, filepath: 'README.md' },
      retry(first, yes),
    );
    assert.equal(payload(other).error?.kind, 'confirmation_transplanted');
    const second = await answerToolCall(author, 'gitea_contents_get', args, retry(first, yes));
    assert.equal(content(second), 'API_KEY=abc123def456ghi\n');
  });

  test("the namespace's own token in a result is never offered: no question, and it stays redacted", async () => {
    const token = sandbox.users.alice?.token ?? '';
    const answer = await answerToolCall(
      author,
      'gitea_contents_get',
      { owner: 'acme', repo: 'gadgets', filepath: 'leak.txt', reveal_secrets: true },
      FORM,
    );
    assert.equal(answer.ask, undefined);
    assert.ok(!JSON.stringify(answer.result).includes(token));
  });
});
