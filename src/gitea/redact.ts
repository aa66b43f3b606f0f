// Removes secrets from anything a call returns. Exact values (always) become
// `[REDACTED sha256:<12 hex>]`; credential-shaped text (mask/block modes) keeps 4 characters and
// becomes `abcd…[MASKED hmac:<12 hex>]`. One walk over the data, regexes compiled once per call.
import { isUtf8 } from 'node:buffer';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { MIN_SECRET_FIELD_LENGTH, SECRET_PATTERNS, SECRET_RESULT_KEYS } from './secrets.js';
import type { SecretDetectionMode } from './options.js';
import {
  archiveFormatOf,
  DEFAULT_ARCHIVE_BOUNDS,
  inspectArchive,
  type ArchiveBounds,
  type ArchiveNote,
} from './archive.js';
import { base64FieldsOf } from './base64-fields.js';

/** Deeper than any decoded result can be (JSON past 100 levels stays text); a guard, not a limit users meet. */
const MAX_WALK_DEPTH = 128;
const KEEP_CHARS = 4;
const ELLIPSIS_AS_LATIN1 = Buffer.from('…', 'utf8').toString('latin1');

/** Of a secret the caller or operator knows (the token, server secrets, what the request sent): comparable with their own sha256. */
export function fingerprint(value: string): string {
  return `sha256:${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 12)}`;
}

/**
 * Of a masked value: a credential found in Gitea's data that the reader has not seen, shown with its
 * first characters. A plain hash of a short one (`password=Summer2024`) could be reversed by trying
 * candidates, so it is keyed per process: equal values still match within one server run.
 */
const MASK_KEY = randomBytes(32);
export function maskFingerprint(value: string): string {
  return `hmac:${createHmac('sha256', MASK_KEY).update(value, 'utf8').digest('hex').slice(0, 12)}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** JSON's two-character escapes, by the character they stand for. */
const SHORT_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '\\"'],
  ['\\', '\\\\'],
  ['/', '\\/'],
  ['\b', '\\b'],
  ['\f', '\\f'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
]);

/**
 * `secret` as written raw or with any of its characters JSON-escaped (`\u0061`, `\"`, `\/`): text
 * that is JSON but was not parsed (nested too deep, invalid, quoted in an error) still hides nothing.
 */
function escapeTolerantSource(secret: string): string {
  let source = '';
  for (let index = 0; index < secret.length; index++) {
    const unit = secret.charAt(index);
    const hex = secret
      .charCodeAt(index)
      .toString(16)
      .padStart(4, '0')
      .replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`);
    const short = SHORT_ESCAPES.get(unit);
    source += `(?:${escapeRegExp(unit)}|\\\\u${hex}${short === undefined ? '' : `|${escapeRegExp(short)}`})`;
  }
  return source;
}

const SECRET_GROUP = (index: number): string => `secret${index}`;

/** Secrets at least this long are also looked for in their base64 and percent-encoded forms. */
const MIN_ENCODED_SECRET_LENGTH = 12;

/**
 * The forms a secret takes inside encoded text: percent-encoded, and base64 (standard and URL-safe)
 * at each of the three byte alignments it can have inside a longer blob, cut to the characters that
 * depend on the secret's bytes alone (so `Basic base64(user:token)` or a base64 file still shows it).
 */
function encodedForms(secret: string): string[] {
  if (secret.length < MIN_ENCODED_SECRET_LENGTH) return [];
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([encodeURIComponent(secret)]);
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const end = offset + bytes.length;
    const lastPure = Math.floor(end / 3) * 4 + [0, 1, 2][end % 3]!;
    const core = encoded.slice([0, 2, 3][offset], lastPure);
    forms.add(core);
    forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  forms.delete(secret);
  return [...forms];
}

/** What happened to one file's content in a result: decoded as text and redacted, kept as bytes, or opened as an archive. */
export interface FileContentNote {
  /** The file's path when the result names it. */
  path: string | null;
  decoded_as: 'text' | 'binary' | 'archive';
  /** True when a secret was replaced or masked, so the content differs from the file. */
  changed: boolean;
  /** An archive: what was inspected inside (src/gitea/archive.ts); it comes back built again from that. */
  archive?: ArchiveNote;
}

/** A file's bytes are text when they are valid UTF-8 without NUL bytes. */
export function isTextContent(bytes: Buffer): boolean {
  return !bytes.includes(0) && isUtf8(bytes);
}

const PATTERN_GROUP = (index: number): string => `pattern${index}`;
const COMBINED_SOURCE = SECRET_PATTERNS.map((pattern, index) => `(?<${PATTERN_GROUP(index)}>${pattern.source})`).join(
  '|',
);
/** All patterns as one alternation, so each string is scanned once. */
const COMBINED_PATTERNS = new RegExp(COMBINED_SOURCE, 'g');
/** The same, not global: test() keeps no lastIndex between uses. */
const ANY_PATTERN = new RegExp(COMBINED_SOURCE);
/** Joins a result's strings for the one search over all (Redactor.unchanged): a non-word character, so `\b` at a string's edge still holds. */
const STRING_SEPARATOR = '\n';

export interface RedactionFindings {
  /** How many exact secret occurrences were replaced. */
  redacted: number;
  /** Pattern kinds found (and masked); block mode withholds the result when this is not empty. */
  kinds: Set<string>;
}

export interface RedactorOptions {
  /** Pattern masking and secret-named JSON keys; off for credential-issuing successes and mode off. */
  patterns: boolean;
  /** Values redacted like the exact secrets that a person may still let the agent see (a fresh credential). */
  revealable?: readonly string[];
  /** Bounds for opening archives inside downloads (default DEFAULT_ARCHIVE_BOUNDS). */
  archives?: ArchiveBounds;
}

interface CompiledSecrets {
  labels: [secret: string, label: string][];
  formLabels: string[];
  exact: RegExp | null;
  /** `exact` without the global flag, for test(). */
  anyExact: RegExp | null;
}

/**
 * The search for a set of secrets, built once per set: a namespace redacts every call with the same
 * few secrets, and building the alternation of each one's encodings cost more than using it. The
 * RegExp is global, so each use starts from lastIndex 0 (String.replace resets it).
 */
const compiledSecretSets = new Map<string, CompiledSecrets>();
const MAX_COMPILED_SECRET_SETS = 64;

function compiledSecrets(secrets: readonly string[]): CompiledSecrets {
  const distinct = [...new Set(secrets.filter((secret) => secret.length > 0))].sort((a, b) => b.length - a.length);
  const key = JSON.stringify(distinct);
  const known = compiledSecretSets.get(key);
  if (known) return known;
  const labels = distinct.map((secret): [string, string] => [secret, `[REDACTED ${fingerprint(secret)}]`]);
  const forms = labels
    .flatMap(([secret, label]) => [secret, ...encodedForms(secret)].map((form) => ({ form, label })))
    .sort((a, b) => b.form.length - a.form.length);
  // Longest first, so a secret containing another is replaced whole.
  const sources = forms.map(({ form }, index) => `(?<${SECRET_GROUP(index)}>${escapeTolerantSource(form)})`);
  const compiled = {
    labels,
    formLabels: forms.map((f) => f.label),
    exact: forms.length > 0 ? new RegExp(sources.join('|'), 'g') : null,
    anyExact: forms.length > 0 ? new RegExp(sources.join('|')) : null,
  };
  if (compiledSecretSets.size >= MAX_COMPILED_SECRET_SETS) compiledSecretSets.clear();
  compiledSecretSets.set(key, compiled);
  return compiled;
}

export class Redactor {
  readonly findings: RedactionFindings = { redacted: 0, kinds: new Set() };
  /** What a person may reveal (reveal_secrets): each masked or revealable value as shown, with the value. */
  readonly hidden = new Map<string, string>();
  /** The labels of the revealable values, with the value each stands for. */
  private readonly revealLabels: ReadonlyMap<string, string>;
  /** Files found in the result (base64 `content` with `encoding: base64`), in the order walked. */
  readonly files: FileContentNote[] = [];
  private readonly exact: RegExp | null;
  private readonly anyExact: RegExp | null;
  /** The secrets (longest first) with their labels, for the byte-level search of binary bodies. */
  private readonly labels: [secret: string, label: string][];
  /** Every searched form (the secret and its encodings, longest first); group `secret<i>` is entry i. */
  private readonly formLabels: string[];

  constructor(
    secrets: readonly string[],
    private readonly options: RedactorOptions,
  ) {
    // A value that is also one of the exact secrets (the token) is never revealable.
    const revealable = (options.revealable ?? []).filter((value) => value !== '' && !secrets.includes(value));
    ({
      labels: this.labels,
      formLabels: this.formLabels,
      exact: this.exact,
      anyExact: this.anyExact,
    } = compiledSecrets([...secrets, ...revealable]));
    this.revealLabels = new Map(revealable.map((value) => [`[REDACTED ${fingerprint(value)}]`, value]));
  }

  text(text: string): string {
    let result = text;
    if (this.exact) {
      result = result.replace(this.exact, (...matchArgs: unknown[]) => {
        const groups = matchArgs[matchArgs.length - 1] as Record<string, string | undefined>;
        this.findings.redacted++;
        const label = this.formLabels.find((_, index) => groups[SECRET_GROUP(index)] !== undefined) ?? '[REDACTED]';
        const revealable = this.revealLabels.get(label);
        if (revealable !== undefined) this.hidden.set(label, revealable);
        return label;
      });
    }
    return this.options.patterns ? this.mask(result) : result;
  }

  /** Decoded JSON with keys and string values redacted: a copy, or `value` itself when nothing in it changes. */
  value(value: unknown): unknown {
    if (this.unchanged(value, 0)) return value;
    // A list with a secret somewhere: each item is searched on its own, and only those with a hit are walked.
    if (Array.isArray(value)) return value.map((item) => (this.unchanged(item, 1) ? item : this.walk(item, 1)));
    return this.walk(value, 0);
  }

  /**
   * Most results hold no secret. Rather than searching each key and string on its own, both searches
   * run once over all of them joined: a match inside one string is also a match inside the joined
   * text, because no pattern has an anchor or a negative look-around (a test keeps it so). A hit, a
   * file's base64 content, a secret-named key or deep nesting sends the value through the walk.
   */
  private unchanged(value: unknown, depth: number): boolean {
    const strings: string[] = [];
    if (!this.gatherStrings(value, depth, strings)) return false;
    const joined = strings.join(STRING_SEPARATOR);
    if (this.anyExact?.test(joined)) return false;
    return !(this.options.patterns && ANY_PATTERN.test(joined));
  }

  /** Collects every key and string; false when the walk has more to do than search text. */
  private gatherStrings(value: unknown, depth: number, strings: string[]): boolean {
    if (typeof value === 'string') {
      strings.push(value);
      return true;
    }
    if (typeof value !== 'object' || value === null) return true;
    if (depth > MAX_WALK_DEPTH) return false;
    if (Array.isArray(value)) return value.every((item) => this.gatherStrings(item, depth + 1, strings));
    const record = value as Record<string, unknown>;
    if (base64FieldsOf(record).length > 0) return false;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'string' && this.options.patterns && SECRET_RESULT_KEYS.has(key.toLowerCase())) return false;
      strings.push(key);
      if (!this.gatherStrings(item, depth + 1, strings)) return false;
    }
    return true;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (depth > MAX_WALK_DEPTH) return '[nested too deep to inspect]';
    if (Array.isArray(value)) return value.map((item) => this.walk(item, depth + 1));
    const file = value as Record<string, unknown>;
    if (base64FieldsOf(file).length > 0) return this.fileObject(file, depth);
    // fromEntries defines properties, so a `__proto__` key from JSON stays a plain key.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [this.text(key), this.field(key, item, depth + 1)]),
    );
  }

  /**
   * A file's bytes: text (UTF-8) is decoded and redacted like any text, then re-encoded; an archive is
   * opened and each file inside redacted (archive.ts); anything else is kept as bytes (see bytes()), so
   * a binary file without a secret comes back unchanged. Throws DownloadWithheld for an archive that
   * cannot be inspected within the bounds.
   */
  fileBytes(bytes: Buffer, path: string | null): Buffer {
    const format = archiveFormatOf(bytes);
    if (format !== null) {
      const inspected = inspectArchive(
        bytes,
        format,
        path ?? 'the download',
        this.options.archives ?? DEFAULT_ARCHIVE_BOUNDS,
        {
          file: (inner) => this.contentBytes(inner).bytes,
          text: (text) => this.text(text),
        },
      );
      this.files.push({ path, decoded_as: 'archive', changed: inspected.note.changed > 0, archive: inspected.note });
      return inspected.bytes;
    }
    const { bytes: result, decodedAs } = this.contentBytes(bytes);
    this.files.push({ path, decoded_as: decodedAs, changed: result !== bytes });
    return result;
  }

  /** One file's contents redacted: as text when they are UTF-8, else as bytes; `bytes` itself when nothing changed. */
  private contentBytes(bytes: Buffer): { bytes: Buffer; decodedAs: 'text' | 'binary' } {
    if (!isTextContent(bytes)) return { bytes: this.bytes(bytes), decodedAs: 'binary' };
    const text = bytes.toString('utf8');
    const redacted = this.text(text);
    return { bytes: redacted === text ? bytes : Buffer.from(redacted, 'utf8'), decodedAs: 'text' };
  }

  /**
   * An object with base64 file bytes (base64-fields.ts: contents, blobs, wiki pages): each such field
   * through fileBytes, the other fields as usual.
   */
  private fileObject(file: Record<string, unknown>, depth: number): Record<string, unknown> {
    const encoded = new Map(
      base64FieldsOf(file).map(({ key, name }) => [key, this.base64Field(String(file[key]), name)]),
    );
    return Object.fromEntries(
      Object.entries(file).map(([key, item]) => [this.text(key), encoded.get(key) ?? this.field(key, item, depth + 1)]),
    );
  }

  private base64Field(content: string, name: string | null): string {
    const bytes = Buffer.from(content, 'base64');
    // Not base64 after all (it does not survive a round trip): redact it as the text it is.
    if (bytes.toString('base64') !== content.replace(/\s+/g, '')) return this.text(content);
    const redacted = this.fileBytes(bytes, name);
    return redacted === bytes ? content : redacted.toString('base64');
  }

  /** Binary bodies: the bytes seen as latin1, so ASCII secrets and patterns are found and replaced in place. */
  bytes(bytes: Buffer): Buffer {
    const view = bytes.toString('latin1');
    const binaryRedactor = new Redactor([], this.options);
    let result = view;
    for (const [secret, label] of this.labels) {
      const asBytes = Buffer.from(secret, 'utf8').toString('latin1');
      const parts = result.split(asBytes);
      this.findings.redacted += parts.length - 1;
      result = parts.join(label);
    }
    result = binaryRedactor.text(result);
    for (const kind of binaryRedactor.findings.kinds) this.findings.kinds.add(kind);
    // The mask's `…` is past latin1: written as its UTF-8 bytes, else it would turn into `&`.
    return result === view ? bytes : Buffer.from(result.replaceAll('…', ELLIPSIS_AS_LATIN1), 'latin1');
  }

  private field(key: string, item: unknown, depth: number): unknown {
    if (typeof item !== 'string' || !this.options.patterns || !SECRET_RESULT_KEYS.has(key.toLowerCase())) {
      return this.walk(item, depth);
    }
    const redacted = this.text(item);
    if (redacted.length < MIN_SECRET_FIELD_LENGTH || redacted.includes('[REDACTED ') || redacted.includes('[MASKED '))
      return redacted;
    this.findings.kinds.add('secret_field');
    return this.masked(redacted);
  }

  /** Masks one value, remembering it for a person's reveal. */
  private masked(secret: string): string {
    const shown = maskValue(secret);
    this.hidden.set(shown, secret);
    return shown;
  }

  private mask(text: string): string {
    return text.replace(COMBINED_PATTERNS, (...matchArgs: unknown[]) => {
      const match = matchArgs[0] as string;
      const groups = matchArgs[matchArgs.length - 1] as Record<string, string | undefined>;
      const pattern = SECRET_PATTERNS.find((_, index) => groups[PATTERN_GROUP(index)] !== undefined);
      if (!pattern) return match;
      this.findings.kinds.add(pattern.kind);
      const secret = pattern.valueGroup ? groups[pattern.valueGroup] : match;
      return secret ? `${match.slice(0, match.length - secret.length)}${this.masked(secret)}` : match;
    });
  }
}

function maskValue(secret: string): string {
  return `${secret.slice(0, KEEP_CHARS)}…[MASKED ${maskFingerprint(secret)}]`;
}

/** For the server's own messages: exact secrets always, patterns unless the mode is off. */
export function redactText(text: string, secrets: readonly string[], mode: SecretDetectionMode = 'mask'): string {
  return new Redactor(secrets, { patterns: mode !== 'off' }).text(text);
}
