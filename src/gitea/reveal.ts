// Secrets a person may let the agent see (reveal_secrets): the fresh credential of a credential-issuing
// operation, which its result now redacts like any secret, and the values pattern masking hid in a
// result. The executor only collects them (Redactor.hidden); the server shows them in clear only after
// a person confirmed the exact operation, with their fingerprints in the question. The identity's
// token and the server's own secrets are never among them.
import type { CatalogEntry, JsonSchema } from '../catalog/types.js';
import { isCredentialIssuing } from './secrets.js';
import { isRecord } from './errors.js';
import { fingerprint } from './redact.js';

/**
 * Where each credential-issuing operation's result carries the fresh credential (Gitea 1.27's API
 * structs): AccessToken.sha1 (routers/api/v1/user/app.go CreateAccessToken), RegistrationToken.token
 * (routers/api/v1/shared/runners.go GetRegistrationToken), OAuth2Application.client_secret
 * (routers/api/v1/user/app.go CreateOauth2Application, UpdateOauth2Application). A test checks them
 * against the pinned spec and against secrets.ts CREDENTIAL_ISSUING_OPERATIONS.
 */
export const FRESH_CREDENTIAL_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['userCreateToken', ['sha1']],
  ['adminCreateRunnerRegistrationToken', ['token']],
  ['orgCreateRunnerRegistrationToken', ['token']],
  ['repoCreateRunnerRegistrationToken', ['token']],
  ['userCreateRunnerRegistrationToken', ['token']],
  ['userCreateOAuth2Application', ['client_secret']],
  ['userUpdateOAuth2Application', ['client_secret']],
]);

/** The call option (never sent to Gitea): listed by the tools whose whole point is a secret. */
export const REVEAL_OPTION = 'reveal_secrets';

const REVEAL_PROPERTY: JsonSchema = {
  type: 'boolean',
  description:
    'Show the fresh credential in clear after a person at the client confirms; without it the result keeps it redacted',
};

/** A tool's input schema, with reveal_secrets listed when its operation issues a credential. */
export function withRevealOption(entry: CatalogEntry, schema: JsonSchema): JsonSchema {
  if (!isCredentialIssuing(entry)) return schema;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return { ...schema, properties: { ...properties, [REVEAL_OPTION]: REVEAL_PROPERTY } };
}

/** The fresh credential(s) in a credential-issuing operation's decoded result; none for any other. */
export function freshCredentials(entry: CatalogEntry, data: unknown): string[] {
  const fields = FRESH_CREDENTIAL_FIELDS.get(entry.operationId) ?? [];
  if (!isRecord(data)) return [];
  return fields
    .map((field) => data[field])
    .filter((value): value is string => typeof value === 'string' && value !== '');
}

/** One hidden value: as the result shows it, in clear, and a fingerprint a person can compare. */
export interface HiddenValue {
  shown: string;
  value: string;
  fingerprint: string;
}

export function hiddenValues(hidden: ReadonlyMap<string, string>): HiddenValue[] {
  return [...hidden].map(([shown, value]) => ({ shown, value, fingerprint: fingerprint(value) }));
}

/** What the envelope says about hidden values: how many, their fingerprints, and how to see them. */
export interface SecretsNote {
  hidden: number;
  /** As each appears in `data` (the redaction label or the masked form, which carries its fingerprint). */
  shown: string[];
  how_to_see: string;
}

export function secretsNote(
  values: readonly HiddenValue[],
  credential: boolean,
  readOnly: boolean,
): SecretsNote | null {
  if (values.length === 0) return null;
  const how = credential
    ? 'The fresh credential was issued but is not shown. To see a credential, issue it with reveal_secrets: true; a person is asked ' +
      'to confirm before it is shown (revoke this one if it is not needed).'
    : readOnly
      ? 'Call again with reveal_secrets: true to see these values in clear; a person is asked to confirm first.'
      : 'These values cannot be shown now (repeating the call would repeat its write). Pass reveal_secrets: true with such a call; ' +
        'a person is asked to confirm before its masked values are shown.';
  return { hidden: values.length, shown: values.map((v) => v.shown), how_to_see: how };
}

/** The hidden values that `data` still shows (scope filtering or integrity labels may have removed some). */
export function hiddenIn(data: unknown, values: readonly HiddenValue[]): HiddenValue[] {
  const text = JSON.stringify(revealIn(data, [])) ?? '';
  const clear = JSON.stringify(revealIn(data, values)) ?? '';
  if (text === clear) return [];
  return values.filter((v) => JSON.stringify(revealIn(data, [v])) !== text);
}

/** `data` with every hidden value shown in clear: in strings, and inside base64 file contents. */
export function revealIn(data: unknown, values: readonly HiddenValue[]): unknown {
  const ordered = [...values].sort((a, b) => b.shown.length - a.shown.length);
  const text = (value: string): string => ordered.reduce((out, v) => out.split(v.shown).join(v.value), value);
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (!isRecord(value)) return value;
    const file = value.encoding === 'base64' && typeof value.content === 'string';
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        file && key === 'content' ? fileContent(item as string) : walk(item),
      ]),
    );
  };
  // A text file the redaction changed holds the shown forms once decoded; any other file is left byte for byte.
  const fileContent = (content: string): string => {
    const decoded = Buffer.from(content, 'base64').toString('utf8');
    return ordered.some((v) => decoded.includes(v.shown))
      ? Buffer.from(text(decoded), 'utf8').toString('base64')
      : content;
  };
  return walk(data);
}
