// Archives inside what a call downloads (repoGetArchive's .zip and .tar.gz, a zip or tarball read as
// a raw file or as base64 contents, an artifact): their bytes are compressed, so a search of the bytes
// finds nothing. They are opened within bounds (total inflated size, entry count, inflation ratio,
// nesting), every file inside goes through the same redaction as file contents, and the archive is
// built again from what was inspected, so nothing uninspected (an entry hidden outside the central
// directory, data past the end) goes out. What cannot be inspected within the bounds (a zip bomb,
// a git bundle, an encrypted or unknown format) is withheld whole: DownloadWithheld.
//
// A zip bomb is refused before anything of it is inflated: each entry's declared size is checked
// against the bounds first, and fflate inflates an entry into a buffer of exactly its declared size,
// so one that lies about its size cannot inflate past it. A gzip stream is inflated by node's zlib
// with a hard cap on the output (maxOutputLength), after its declared size passed the same checks.
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { gunzipSync, gzipSync } from 'node:zlib';
import { looksLikeTar, paxRecords, readPaxRecords, readTar, TarFormatError, writeTar } from '../shared/tar.js';

export interface ArchiveBounds {
  /** Bytes all entries of one download may inflate to, at every depth together. */
  maxInflatedBytes: number;
  /** Files and directories of one download, at every depth together. */
  maxEntries: number;
  /** How many times its compressed size an entry (or a gzip stream) may inflate to, once past 1 MiB. */
  maxRatio: number;
  /** Archives inside archives: the download itself is depth 1. */
  maxDepth: number;
}

export const DEFAULT_ARCHIVE_BOUNDS: Readonly<ArchiveBounds> = Object.freeze({
  maxInflatedBytes: 32 * 1024 * 1024,
  maxEntries: 10_000,
  maxRatio: 100,
  maxDepth: 3,
});

/** Below this many inflated bytes the ratio is not judged: a small file of one repeated byte is no bomb. */
const RATIO_FLOOR = 1024 * 1024;
/** Rebuilt zips carry this time (the earliest a zip can hold): the originals' are not kept. */
const ZIP_TIME = new Date(1980, 0, 1);
const MAX_NAMES = 20;

export type ArchiveFormat = 'zip' | 'gzip' | 'tar' | 'git bundle' | 'xz' | 'bzip2' | 'zstd' | '7z' | 'rar';

const MAGIC: ReadonlyArray<[ArchiveFormat, Buffer]> = [
  ['zip', Buffer.from('504b0304', 'hex')],
  ['zip', Buffer.from('504b0506', 'hex')],
  ['gzip', Buffer.from('1f8b08', 'hex')],
  ['git bundle', Buffer.from('# v2 git bundle\n')],
  ['git bundle', Buffer.from('# v3 git bundle\n')],
  ['xz', Buffer.from('fd377a585a00', 'hex')],
  ['zstd', Buffer.from('28b52ffd', 'hex')],
  ['7z', Buffer.from('377abcaf271c', 'hex')],
  ['rar', Buffer.from('526172211a07', 'hex')],
];
const BZIP2 = /^BZh[1-9]1AY&SY/;

/** The archive or compression format `bytes` start with, or null for anything else. */
export function archiveFormatOf(bytes: Buffer): ArchiveFormat | null {
  for (const [format, magic] of MAGIC) if (bytes.subarray(0, magic.length).equals(magic)) return format;
  if (BZIP2.test(bytes.subarray(0, 10).toString('latin1'))) return 'bzip2';
  return looksLikeTar(bytes) ? 'tar' : null;
}

/** The download is not handed over: why, for the envelope's error. */
export class DownloadWithheld extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'DownloadWithheld';
  }
}

/** What the envelope says of an inspected archive. */
export interface ArchiveNote {
  format: ArchiveFormat;
  /** Files inspected, at every depth. */
  entries: number;
  inflated_bytes: number;
  /** How many files (or names) had a secret replaced or masked. */
  changed: number;
  /** The first of them, by path inside the archive. */
  changed_entries: string[];
}

export interface EntryRedaction {
  /** One file's bytes through the redaction of file contents (text decoded, binary searched as bytes). */
  file(bytes: Buffer): Buffer;
  /** A name or a pax value: redacted as text. */
  text(text: string): string;
}

/** Opens the archive within `bounds`, redacts every file inside, and builds it again; throws DownloadWithheld. */
export function inspectArchive(
  bytes: Buffer,
  format: ArchiveFormat,
  path: string,
  bounds: ArchiveBounds,
  redaction: EntryRedaction,
): { bytes: Buffer; note: ArchiveNote } {
  const inspection = new Inspection(bounds, redaction);
  const rebuilt = inspection.archive(bytes, format, path, 1);
  const { entries, inflated, changed } = inspection;
  return {
    bytes: rebuilt,
    note: {
      format,
      entries,
      inflated_bytes: inflated,
      changed: changed.length,
      changed_entries: changed.slice(0, MAX_NAMES),
    },
  };
}

class Inspection {
  entries = 0;
  inflated = 0;
  readonly changed: string[] = [];

  constructor(
    private readonly bounds: ArchiveBounds,
    private readonly redaction: EntryRedaction,
  ) {}

  archive(bytes: Buffer, format: ArchiveFormat, path: string, depth: number): Buffer {
    if (depth > this.bounds.maxDepth)
      throw new DownloadWithheld(`${path} is an archive nested more than ${this.bounds.maxDepth} deep`);
    switch (format) {
      case 'zip':
        return this.zip(bytes, path, depth);
      case 'gzip':
        return this.gzip(bytes, path, depth);
      case 'tar':
        return this.tar(bytes, path, depth);
      case 'git bundle':
        throw new DownloadWithheld(
          `${path} is a git bundle: a pack of compressed, delta-encoded objects, which is not inspected ` +
            '(ask for a .zip or .tar.gz of the same ref)',
        );
      default:
        throw new DownloadWithheld(`${path} is a ${format} archive, which is not inspected (zip, tar and gzip are)`);
    }
  }

  /** One file found inside: an archive again (one level deeper), or contents to redact. */
  private file(bytes: Buffer, path: string, depth: number): Buffer {
    const format = archiveFormatOf(bytes);
    const result = format === null ? this.redaction.file(bytes) : this.archive(bytes, format, path, depth + 1);
    if (format === null && result !== bytes) this.changed.push(path);
    return result;
  }

  /** Counts an entry that will inflate to `declared` bytes from `compressed`; refuses past the bounds. */
  private admit(declared: number, compressed: number, path: string): void {
    const { maxEntries, maxInflatedBytes, maxRatio } = this.bounds;
    this.entries += 1;
    if (this.entries > maxEntries) throw new DownloadWithheld(`it holds more than ${maxEntries} entries`);
    if (declared > RATIO_FLOOR && declared > compressed * maxRatio) {
      throw new DownloadWithheld(
        `${path} would inflate from ${compressed} to ${declared} bytes, more than ${maxRatio} times (a zip bomb)`,
      );
    }
    this.inflated += declared;
    if (this.inflated > maxInflatedBytes)
      throw new DownloadWithheld(`its contents inflate to more than ${maxInflatedBytes} bytes`);
  }

  private zip(bytes: Buffer, path: string, depth: number): Buffer {
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(bytes, {
        filter: (entry) => {
          if (entry.compression !== 0 && entry.compression !== 8)
            throw new DownloadWithheld(
              `${path}/${entry.name} is compressed with method ${entry.compression}, which is not inspected`,
            );
          this.admit(entry.originalSize, entry.size, `${path}/${entry.name}`);
          return true;
        },
      });
    } catch (error) {
      if (error instanceof DownloadWithheld) throw error;
      throw new DownloadWithheld(`${path} is not a zip archive that can be read (${(error as Error).message})`);
    }
    const rebuilt: Zippable = {};
    for (const [name, data] of Object.entries(files)) {
      const shownName = this.name(name, `${path}/${name}`);
      rebuilt[shownName] = [
        name.endsWith('/') ? data : this.file(Buffer.from(data), `${path}/${name}`, depth),
        { mtime: ZIP_TIME },
      ];
    }
    return Buffer.from(zipSync(rebuilt, { level: 6 }));
  }

  private gzip(bytes: Buffer, path: string, depth: number): Buffer {
    const declared = bytes.length >= 18 ? bytes.readUInt32LE(bytes.length - 4) : 0;
    const cap = Math.min(
      this.bounds.maxInflatedBytes - this.inflated,
      Math.max(RATIO_FLOOR, bytes.length * this.bounds.maxRatio),
    );
    if (declared > cap)
      throw new DownloadWithheld(
        `${path} says it inflates to ${declared} bytes, past the bounds (a gzip bomb, or too large)`,
      );
    let inflated: Buffer;
    try {
      inflated = gunzipSync(bytes, { maxOutputLength: Math.max(cap, 1) });
    } catch (error) {
      const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
      throw new DownloadWithheld(
        tooLarge
          ? `${path} inflates past ${cap} bytes, past the bounds (a gzip bomb, or too large)`
          : `${path} is not a gzip stream that can be read (${(error as { code?: string }).code ?? 'damaged'})`,
      );
    }
    this.inflated += inflated.length;
    const inner = path.replace(/\.(t?gz|gzip)$/i, (ext) => (ext.toLowerCase() === '.tgz' ? '.tar' : ''));
    const rebuilt = looksLikeTar(inflated) ? this.tar(inflated, inner, depth) : this.file(inflated, inner, depth);
    return gzipSync(rebuilt);
  }

  private tar(bytes: Buffer, path: string, depth: number): Buffer {
    let entries;
    try {
      entries = readTar(bytes, this.bounds.maxEntries - this.entries + 1);
    } catch (error) {
      if (!(error instanceof TarFormatError)) throw error;
      throw new DownloadWithheld(`${path} is not a tar archive that can be read (${error.message})`);
    }
    let longName: string | null = null;
    for (const entry of entries) {
      const where = `${path}/${longName ?? entry.name}`;
      if (entry.type === 'x' || entry.type === 'g') {
        const records = this.paxRecords(entry.data, where);
        const redacted = records.map(([key, value]): [string, string] => [key, this.name(value, where)]);
        if (redacted.some(([, value], i) => value !== records[i]?.[1])) entry.data = paxRecords(redacted);
        longName = entry.type === 'x' ? (records.find(([key]) => key === 'path')?.[1] ?? null) : longName;
        continue;
      }
      if (entry.type === 'L' || entry.type === 'K') {
        const name = entry.data.toString('utf8').replace(/\0+$/, '');
        const shown = this.name(name, where);
        if (shown !== name) entry.data = Buffer.from(`${shown}\0`, 'utf8');
        if (entry.type === 'L') longName = name;
        continue;
      }
      if (
        this.name(entry.name, where) !== entry.name ||
        this.name(linkName(entry.header), where) !== linkName(entry.header)
      )
        throw new DownloadWithheld(`a name in ${path} holds a secret`);
      longName = null;
      this.entries += 1;
      if (this.entries > this.bounds.maxEntries)
        throw new DownloadWithheld(`it holds more than ${this.bounds.maxEntries} entries`);
      if (entry.type === '0' || entry.type === '\0' || entry.type === '7')
        entry.data = this.file(entry.data, where, depth);
      else if (entry.data.length > 0)
        throw new DownloadWithheld(`${where} is a tar entry of type '${entry.type}', which is not inspected`);
    }
    return writeTar(entries);
  }

  private paxRecords(data: Buffer, where: string): Array<[string, string]> {
    let records;
    try {
      records = readPaxRecords(data);
    } catch (error) {
      throw new DownloadWithheld(`${where}: ${(error as Error).message}`);
    }
    // A pax size overrides the header's: only entries past 8 GiB need it, far past the bounds.
    if (records.some(([key]) => key === 'size')) throw new DownloadWithheld(`${where} is larger than the bounds`);
    return records;
  }

  /** A name (or pax value) redacted as text; one that changes counts as a changed entry. */
  private name(name: string, where: string): string {
    const shown = this.redaction.text(name);
    if (shown !== name) this.changed.push(where);
    return shown;
  }
}

function linkName(header: Buffer): string {
  const raw = header.subarray(157, 257);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
}
