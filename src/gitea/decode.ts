// A response body -> data: parsed JSON, text, or a binary description. JSON nested deeper than
// MAX_JSON_DEPTH stays text, decided by a scan of the raw text, so no later walk can recurse too far.

export const MAX_JSON_DEPTH = 100;

export interface BinaryData {
  content_base64: string | null;
  content_type: string;
  size: number;
  /**
   * 'text': valid UTF-8, redacted and masked like any text, then re-encoded; 'binary': kept as bytes;
   * 'archive': opened, each file inside redacted, built again (the envelope's file_contents says what).
   */
  decoded_as?: 'text' | 'binary' | 'archive';
  /** True when redaction replaced something, so the bytes differ from what Gitea sent. */
  changed?: boolean;
}

export type Decoded =
  | { form: 'empty'; data: null }
  | { form: 'json'; data: unknown }
  | { form: 'text'; data: string; reason?: 'too_deep' | 'invalid_json' }
  | { form: 'binary'; contentType: string; bytes: Buffer };

const TEXTUAL_TYPE = /^text\/|[/+](json|xml|javascript|yaml|x-yaml|x-patch|x-diff)\b/i;
const JSON_TYPE = /[/+]json\b/i;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when objects/arrays nest deeper than `limit`; brackets inside strings do not count. */
export function jsonDepthExceeds(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}

export function decodeBody(contentType: string | null, bytes: Buffer): Decoded {
  if (bytes.length === 0) return { form: 'empty', data: null };
  const type = contentType ?? '';
  if (JSON_TYPE.test(type)) return decodeJson(bytes.toString('utf8'));
  if (TEXTUAL_TYPE.test(type)) return { form: 'text', data: bytes.toString('utf8') };
  const mediaType = type.split(';')[0]?.trim() || 'application/octet-stream';
  return { form: 'binary', contentType: mediaType, bytes };
}

export function decodeJson(text: string): Decoded {
  if (jsonDepthExceeds(text)) return { form: 'text', data: text, reason: 'too_deep' };
  try {
    return { form: 'json', data: JSON.parse(text) as unknown };
  } catch {
    return { form: 'text', data: text, reason: 'invalid_json' };
  }
}
