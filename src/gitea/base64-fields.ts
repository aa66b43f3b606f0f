// Which fields of a result object carry a file's bytes as base64, so that redaction decodes them and
// searches what they say rather than their encoding. Gitea sends file bytes in base64 in:
// - contents and git blobs: `content` with `encoding: "base64"` (services/repository/files
//   GetContents, routers/api/v1/repo/blob.go GetBlob);
// - wiki pages: `content_base64`, and beside it `sidebar` and `footer`, which Gitea encodes the same
//   way though their names do not say so (routers/api/v1/repo/wiki.go getWikiPage: all three come from
//   wikiContentsByEntry, blob.GetBlobContentBase64).

export interface Base64Field {
  key: string;
  /** What the envelope names the decoded file by (a path, a page title). */
  name: string | null;
}

/** The base64 fields of `record`, in the order they are redacted; empty for most objects. */
export function base64FieldsOf(record: Record<string, unknown>): Base64Field[] {
  if (record.encoding === 'base64' && typeof record.content === 'string')
    return [{ key: 'content', name: typeof record.path === 'string' ? record.path : null }];
  if (typeof record.content_base64 !== 'string') return [];
  const title = typeof record.title === 'string' ? record.title : null;
  const fields: Base64Field[] = [{ key: 'content_base64', name: title }];
  for (const [key, page] of [
    ['sidebar', '_Sidebar'],
    ['footer', '_Footer'],
  ] as const) {
    if (typeof record[key] === 'string' && record[key] !== '') fields.push({ key, name: page });
  }
  return fields;
}
