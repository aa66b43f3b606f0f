// Text from below a profile's integrity floor, made safe to show: what a person would not see on the
// Gitea page (invisible and bidirectional-control characters, Unicode tag characters, HTML comments,
// hidden markup, Markdown comments) is made visible, so it cannot reach the model unseen.

export interface SanitizedText {
  text: string;
  /** How many hidden things were made visible. */
  changes: number;
}

// Zero-width and joiner characters, bidirectional controls, word joiner and invisible operators,
// the byte-order mark, the interlinear annotation marks, variation selectors and the soft hyphen.
const INVISIBLE =
  /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]/g;
// Unicode tag characters (U+E0000..U+E007F) spell ASCII that no page shows: shown as the text they spell.
const TAGS = /(?:\uDB40[\uDC00-\uDC7F])+/g;
const HTML_COMMENT = /<!--([\s\S]*?)(?:-->|$)/g;
const MARKDOWN_COMMENT = /^\[(?:\/\/|comment|_)\]:\s*(?:#|<>)\s*\(([^)\n]*)\)\s*$/gim;
const HIDDEN_TAG =
  /<([a-z][a-z0-9]*)\b[^>]*?(?:\shidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0*)?\b)[^>]*>/gi;

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

// Anything any of the patterns below could match starts with one of these: most text has none, and is
// returned after this one test.
const SUSPECT =
  /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\uFE00-\uFE0F\uDB40<]|^\[/m;

export function sanitizeUntrusted(input: string): SanitizedText {
  if (!SUSPECT.test(input)) return { text: input, changes: 0 };
  let changes = 0;
  const count =
    <T extends unknown[]>(replace: (...args: T) => string) =>
    (...args: T): string => {
      changes++;
      return replace(...args);
    };
  let text = input.replace(
    TAGS,
    count((run: string) => {
      const spelled = [...run].map((char) => String.fromCharCode((char.codePointAt(0) ?? 0) - 0xe0000)).join('');
      return `[hidden tag characters: ${JSON.stringify(spelled.replace(/[^\x20-\x7e]/g, ''))}]`;
    }),
  );
  text = text.replace(
    INVISIBLE,
    count((char: string) => `[${codePoint(char)}]`),
  );
  text = text.replace(
    HTML_COMMENT,
    count((_match: string, inner: string) => `[hidden HTML comment: ${inner.trim()}]`),
  );
  text = text.replace(
    MARKDOWN_COMMENT,
    count((_match: string, inner: string) => `[hidden Markdown comment: ${inner.trim()}]`),
  );
  text = text.replace(
    HIDDEN_TAG,
    count((tag: string) => `[hidden markup ${tag.replace(/[<>]/g, '')}]`),
  );
  return { text, changes };
}
