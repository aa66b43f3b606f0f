// What counts as a secret: the exact values known for one call (identity token, server secrets,
// secrets the request itself submitted), the field names that hold secrets, the patterns that
// look like credentials, and the operations whose purpose is to hand a fresh credential over.
import type { CatalogEntry } from '../catalog/types.js';
import { isRecord } from './errors.js';

/**
 * Operations that issue a credential: on success their result is delivered without pattern
 * masking or blocking (exact redaction still applies). A constant list, kept here on purpose:
 * it is a property of Gitea's API, not of any profile; checked against the pinned spec by a test.
 */
export const CREDENTIAL_ISSUING_OPERATIONS: ReadonlySet<string> = new Set([
  'userCreateToken',
  'adminCreateRunnerRegistrationToken',
  'orgCreateRunnerRegistrationToken',
  'repoCreateRunnerRegistrationToken',
  'userCreateRunnerRegistrationToken',
  'userCreateOAuth2Application',
  'userUpdateOAuth2Application',
]);

/** Request-body fields whose values (4+ characters) are redacted from the same call's result. */
export const SECRET_BODY_FIELDS: ReadonlySet<string> = new Set([
  'password',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'auth_password',
  'auth_token',
  'private_key',
  'authorization_header',
  'remote_password',
  'mirror_password',
  'mirror_token',
  'aws_secret_access_key',
  'aws_access_key_id',
]);

/** Shorter values under secret-named fields are left alone: redacting `abc` everywhere would garble results. */
export const MIN_SECRET_FIELD_LENGTH = 4;
const MAX_BODY_SECRET_DEPTH = 8;
/** PUT /…/actions/secrets/{secretname} creates or updates an Actions secret; its `data` is the secret. */
const ACTIONS_SECRET_PATH = /\/actions\/secrets\/\{[^}]+\}$/;

export function isCredentialIssuing(entry: CatalogEntry): boolean {
  return CREDENTIAL_ISSUING_OPERATIONS.has(entry.operationId);
}

export function isActionsSecretWrite(entry: CatalogEntry): boolean {
  return (entry.method === 'PUT' || entry.method === 'POST') && ACTIONS_SECRET_PATH.test(entry.path);
}

/** Secret values submitted in this call's body, collected from nested objects and lists. */
export function requestBodySecrets(entry: CatalogEntry, args: Record<string, unknown>): string[] {
  const found: string[] = [];
  const body = args.body;
  if (isActionsSecretWrite(entry) && isRecord(body) && typeof body.data === 'string' && body.data !== '') {
    found.push(body.data);
  }
  collectSecretFields(body, 0, found);
  for (const param of [...entry.parameters.form, ...entry.parameters.query]) {
    const value = args[param.name];
    if (SECRET_BODY_FIELDS.has(param.name) && typeof value === 'string' && value.length >= MIN_SECRET_FIELD_LENGTH)
      found.push(value);
  }
  return found;
}

function collectSecretFields(value: unknown, depth: number, found: string[]): void {
  if (depth > MAX_BODY_SECRET_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collectSecretFields(item, depth + 1, found);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, item] of Object.entries(value)) {
    if (
      SECRET_BODY_FIELDS.has(key.toLowerCase()) &&
      typeof item === 'string' &&
      item.length >= MIN_SECRET_FIELD_LENGTH
    ) {
      found.push(item);
    } else {
      collectSecretFields(item, depth + 1, found);
    }
  }
}

export interface SecretPattern {
  /** Reported by block mode; never the value. */
  kind: string;
  source: string;
  /** Named group holding the secret part; the rest of the match (a label) stays readable. */
  valueGroup?: string;
}

/** Labels match in any case (API_KEY=, Password:), while the credential shapes stay case-exact. */
function anyCase(source: string): string {
  return source.replace(/[a-z]/g, (letter) => `[${letter}${letter.toUpperCase()}]`);
}

const TOKEN_LABEL = anyCase(
  String.raw`(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|private[_-]?token|token|password|passwd|secret)`,
);
const VALUE_CHARS = String.raw`[^\s"',;&<>]`;

/**
 * Credential shapes. Bare 40-hex strings are NOT a pattern (commit SHAs look the same); a Gitea
 * token is only recognised behind a label (`token: <hex>`) or under a secret-named JSON key.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    kind: 'private_key',
    source: String.raw`-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s]*)`,
  },
  { kind: 'jwt', source: String.raw`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*` },
  { kind: 'aws_access_key', source: String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b` },
  { kind: 'github_token', source: String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b` },
  { kind: 'slack_token', source: String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}` },
  { kind: 'google_api_key', source: String.raw`\bAIza[0-9A-Za-z_-]{35}` },
  { kind: 'stripe_key', source: String.raw`\b(?:sk|rk)_live_[0-9A-Za-z]{16,}` },
  {
    kind: 'authorization_header',
    source: String.raw`\b${anyCase('authorization')}["']?\s*[:=]\s*["']?${anyCase('(?:token|bearer|basic)')}\s+(?<authValue>${VALUE_CHARS}{4,})`,
    valueGroup: 'authValue',
  },
  // Incoming-webhook URLs are credentials themselves: whoever has one can post as the integration.
  // The host and the fixed path stay readable; the secret part is masked. Gitea stores and returns
  // them in a hook's config.url (services/convert/convert.go ToHook), for the hook types of
  // services/webhook/ (slack.go, discord.go, msteams.go, feishu.go, dingtalk.go, wechatwork.go, telegram.go).
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://hooks\.slack\.com/(?:services|workflows|triggers)/(?<slackHook>[A-Za-z0-9_/-]{8,})`,
    valueGroup: 'slackHook',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/(?<discordHook>\d+/[A-Za-z0-9_-]{8,})`,
    valueGroup: 'discordHook',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://(?:[A-Za-z0-9-]+\.)*(?:webhook\.office\.com|outlook\.office(?:365)?\.com)/(?<teamsHook>webhook(?:b2)?/[^\s"'<>]{8,})`,
    valueGroup: 'teamsHook',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://[A-Za-z0-9.-]+\.logic\.azure\.com[^\s"'<>]*?[?&]sig=(?<azureSig>[A-Za-z0-9_%-]{8,})`,
    valueGroup: 'azureSig',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://chat\.googleapis\.com/v1/spaces/[^\s"'<>?]+(?<gchatHook>\?[^\s"'<>]{8,})`,
    valueGroup: 'gchatHook',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/(?<larkHook>[A-Za-z0-9-]{8,})`,
    valueGroup: 'larkHook',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://oapi\.dingtalk\.com/robot/send\?access_token=(?<dingHook>[A-Za-z0-9]{8,})`,
    valueGroup: 'dingHook',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=(?<wecomHook>[A-Za-z0-9-]{8,})`,
    valueGroup: 'wecomHook',
  },
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://api\.telegram\.org/bot(?<telegramBot>\d+:[A-Za-z0-9_-]{20,})`,
    valueGroup: 'telegramBot',
  },
  // Mattermost and Rocket.Chat incoming webhooks on any host: /hooks/<26-char id>[/<token>].
  {
    kind: 'webhook_url',
    source: String.raw`\bhttps?://[^\s"'<>/]+(?:/[^\s"'<>/]+)*?/hooks/(?<chatHook>[A-Za-z0-9]{20,}(?:/[A-Za-z0-9]{20,})?)`,
    valueGroup: 'chatHook',
  },
  {
    // A labelled assignment; the value must mix letters and digits so prose ("password: required") passes.
    kind: 'assignment',
    source: String.raw`\b${TOKEN_LABEL}["']?\s*[:=]\s*["']?(?<assignedValue>(?=${VALUE_CHARS}*\d)(?=${VALUE_CHARS}*[A-Za-z])${VALUE_CHARS}{8,})`,
    valueGroup: 'assignedValue',
  },
];

/** JSON keys whose string values in a result are credentials whatever they look like (a webhook's authorization_header). */
export const SECRET_RESULT_KEYS: ReadonlySet<string> = new Set([
  ...SECRET_BODY_FIELDS,
  'passwd',
  'refresh_token',
  'api_key',
  'apikey',
  'authorization',
]);
