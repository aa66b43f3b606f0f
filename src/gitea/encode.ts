// Arguments -> the parts of one HTTP request: the encoded path, the query string and the body.
// Everything is checked before anything is sent; a refusal names the parameter, never its value.
import type { CatalogEntry, CatalogParameter } from '../catalog/types.js';
import { errorBody, type ErrorBody } from './errors.js';

export type Encoded<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

export interface RequestBody {
  content: string | FormData | URLSearchParams;
  /** Unset for FormData: fetch writes the multipart boundary itself. */
  contentType?: string;
}

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function refuse<T>(message: string, kind: ErrorBody['kind'] = 'bad_request'): Encoded<T> {
  return {
    ok: false,
    error: errorBody(null, kind, message, 'Correct the argument and call again; nothing was sent to Gitea.'),
  };
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return null;
}

/**
 * One path value. Wildcard params (branch, tag, file path, ref) keep `/` between encoded segments;
 * all others escape it as %2F. Dot segments would be resolved away by URL parsing, so they are refused.
 */
export function encodePathValue(name: string, value: unknown, wildcard: boolean): Encoded<string> {
  const text = scalarText(value);
  if (text === null || text === '') return refuse(`path parameter '${name}' must be a non-empty string or number`);
  if (CONTROL_CHARACTERS.test(text)) return refuse(`path parameter '${name}' contains control characters`);
  const segments = text.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.')) {
    return refuse(`path parameter '${name}' contains a '.' or '..' segment`);
  }
  if (wildcard && segments.some((segment) => segment === '')) {
    return refuse(`path parameter '${name}' contains an empty segment (leading, trailing or doubled '/')`);
  }
  try {
    const encoded = segments.map((segment) => encodeURIComponent(segment));
    return { ok: true, value: encoded.join(wildcard ? '/' : '%2F') };
  } catch {
    return refuse(`path parameter '${name}' is not valid Unicode`);
  }
}

/** The path below /api/v1 with every `{param}` replaced. */
export function encodePath(entry: CatalogEntry, args: Record<string, unknown>): Encoded<string> {
  let path = entry.path;
  for (const param of entry.parameters.path) {
    const encoded = encodePathValue(param.name, args[param.name], param.wildcard);
    if (!encoded.ok) return encoded;
    path = path.split(`{${param.name}}`).join(encoded.value);
  }
  if (/[{}]/.test(path)) return refuse(`the path template ${entry.path} has a parameter the catalog does not describe`);
  return { ok: true, value: path };
}

function appendAll(
  target: URLSearchParams,
  params: CatalogParameter[],
  args: Record<string, unknown>,
  where: string,
): Encoded<URLSearchParams> {
  for (const param of params) {
    const value = args[param.name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      const text = scalarText(item);
      if (text === null) return refuse(`${where} parameter '${param.name}' must be a string, number or boolean`);
      target.append(param.name, text);
    }
  }
  return { ok: true, value: target };
}

export function encodeQuery(entry: CatalogEntry, args: Record<string, unknown>): Encoded<URLSearchParams> {
  return appendAll(new URLSearchParams(), entry.parameters.query, args, 'query');
}

export function encodeBody(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  maxBinaryBytes: number,
): Encoded<RequestBody | null> {
  const { form, file, body } = entry.parameters;
  if (file.length > 0 || (form.length > 0 && entry.consumes.includes('multipart/form-data'))) {
    return encodeMultipart(entry, args, maxBinaryBytes);
  }
  if (form.length > 0) {
    const fields = appendAll(new URLSearchParams(), form, args, 'form');
    return fields.ok
      ? { ok: true, value: { content: fields.value, contentType: 'application/x-www-form-urlencoded' } }
      : fields;
  }
  if (body === null) return { ok: true, value: null };
  if (args.body === undefined)
    return body.required ? refuse(`the request body ('body') is required`) : { ok: true, value: null };
  const textOnly = entry.consumes.length > 0 && entry.consumes.every((type) => type.startsWith('text/'));
  if (textOnly && typeof args.body === 'string')
    return { ok: true, value: { content: args.body, contentType: entry.consumes[0] } };
  return { ok: true, value: { content: JSON.stringify(args.body), contentType: 'application/json' } };
}

function encodeMultipart(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  maxBinaryBytes: number,
): Encoded<RequestBody> {
  const formData = new FormData();
  for (const param of entry.parameters.form) {
    const text = scalarText(args[param.name]);
    if (text !== null) formData.append(param.name, text);
  }
  for (const param of entry.parameters.file) {
    const value = args[param.name];
    if (value === undefined || value === null) {
      if (param.required) return refuse(`file field '${param.name}' is required (base64 string)`);
      continue;
    }
    const decoded = decodeBase64File(param.name, value, maxBinaryBytes);
    if (!decoded.ok) return decoded;
    // Gitea names the attachment after the `name` query argument when given, else after the file name.
    const filename = typeof args.name === 'string' && args.name !== '' ? args.name : param.name;
    formData.append(param.name, new Blob([decoded.value], { type: 'application/octet-stream' }), filename);
  }
  return { ok: true, value: { content: formData } };
}

/** The size check comes first, so an oversized upload is never decoded into memory. */
function decodeBase64File(name: string, value: unknown, maxBinaryBytes: number): Encoded<Buffer> {
  if (typeof value !== 'string') return refuse(`file field '${name}' must be a base64 string`);
  const compact = value.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  const decodedSize = Math.floor((compact.length * 3) / 4) - padding;
  if (decodedSize > maxBinaryBytes) {
    return refuse(
      `file field '${name}' would decode to ${decodedSize} bytes, above the limit of ${maxBinaryBytes} (MAX_BINARY_BYTES)`,
      'payload_too_large',
    );
  }
  if (compact.length % 4 === 1 || !BASE64.test(compact)) return refuse(`file field '${name}' is not valid base64`);
  return { ok: true, value: Buffer.from(compact, 'base64') };
}
