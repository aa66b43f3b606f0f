// The tar format, as far as reading and rewriting an archive takes: a walk of its 512-byte headers
// (POSIX ustar and pax, GNU long names, old v7), each entry's raw header kept byte for byte, and a
// writer that puts entries back with their size field and checksum recomputed. Synchronous, on a
// buffer already in memory: the redaction of downloads (src/gitea/archive.ts) runs inside one
// synchronous walk of a result, and the sandbox answers repoGetArchive with what `git archive` writes.
// Why not a package: ADR 0017.

export const TAR_BLOCK = 512;

/** One entry as it stands in the archive: its header block, type flag, name and data. */
export interface TarEntry {
  /** The raw 512-byte header, kept so that what is not rewritten stays exactly as it was. */
  header: Buffer;
  /** The type flag: '0' (or '\0') a file, '5' a directory, 'x'/'g' pax records, 'L'/'K' GNU long names, ... */
  type: string;
  /** The name the header holds (prefix/name for ustar); pax and GNU long names are separate entries before it. */
  name: string;
  data: Buffer;
}

export class TarFormatError extends Error {
  override name = 'TarFormatError';
}

function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
}

function checksumOf(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] as number);
  return sum;
}

/** Whether `bytes` start with a tar header: its checksum holds (and, for ustar, its magic). */
export function looksLikeTar(bytes: Buffer): boolean {
  if (bytes.length < TAR_BLOCK) return false;
  const header = bytes.subarray(0, TAR_BLOCK);
  const stored = Number.parseInt(field(header, 148, 8).trim() || 'x', 8);
  return Number.isInteger(stored) && stored === checksumOf(header) && field(header, 0, 100) !== '';
}

/** The entries of a tar archive, up to its end-of-archive blocks; throws TarFormatError on anything else. */
export function readTar(bytes: Buffer, maxEntries: number): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + TAR_BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + TAR_BLOCK);
    if (header.every((byte) => byte === 0)) return entries;
    const stored = Number.parseInt(field(header, 148, 8).trim() || 'x', 8);
    if (stored !== checksumOf(header)) throw new TarFormatError(`the header at byte ${offset} is damaged`);
    if (((header[124] as number) & 0x80) !== 0) throw new TarFormatError('an entry is larger than 8 GiB');
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) throw new TarFormatError(`the size at byte ${offset} is not a number`);
    const start = offset + TAR_BLOCK;
    if (start + size > bytes.length) throw new TarFormatError('the archive ends inside an entry');
    if (entries.length >= maxEntries) throw new TarFormatError(`more than ${maxEntries} entries`);
    const magic = field(header, 257, 6);
    const prefix = magic.startsWith('ustar') ? field(header, 345, 155) : '';
    const name = prefix === '' ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`;
    entries.push({
      header: Buffer.from(header),
      type: String.fromCharCode(header[156] as number),
      name,
      data: bytes.subarray(start, start + size),
    });
    offset = start + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
  }
  throw new TarFormatError('the archive has no end-of-archive blocks');
}

/** The archive of `entries`: each header with its size and checksum set to its (new) data, then two zero blocks. */
export function writeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const header = Buffer.from(entry.header);
    header.write(`${entry.data.length.toString(8).padStart(11, '0')}\0`, 124, 12, 'latin1');
    header.write(`${checksumOf(header).toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
    parts.push(header, entry.data, Buffer.alloc((TAR_BLOCK - (entry.data.length % TAR_BLOCK)) % TAR_BLOCK));
  }
  parts.push(Buffer.alloc(2 * TAR_BLOCK));
  return Buffer.concat(parts);
}

export interface NewTarEntry {
  name: string;
  type?: '0' | '5' | 'g' | 'x';
  data?: Buffer;
  mode?: number;
  /** Seconds since the epoch. */
  mtime?: number;
}

/** A ustar entry (names up to 100 bytes), for writing an archive from scratch. */
export function tarEntry({ name, type = '0', data = Buffer.alloc(0), mode, mtime = 0 }: NewTarEntry): TarEntry {
  if (Buffer.byteLength(name) > 100) throw new TarFormatError(`the name ${name} is longer than 100 bytes`);
  const header = Buffer.alloc(TAR_BLOCK);
  header.write(name, 0, 100, 'utf8');
  header.write(`${(mode ?? (type === '5' ? 0o775 : 0o664)).toString(8).padStart(7, '0')}\0`, 100, 8, 'latin1');
  header.write('0000000\0', 108, 8, 'latin1');
  header.write('0000000\0', 116, 8, 'latin1');
  header.write(`${mtime.toString(8).padStart(11, '0')}\0`, 136, 12, 'latin1');
  header.write(type, 156, 1, 'latin1');
  header.write('ustar\0' + '00', 257, 8, 'latin1');
  return { header, type, name, data };
}

/** pax records (`<length> <key>=<value>\n`, the length counting the whole record). */
export function paxRecords(records: ReadonlyArray<[key: string, value: string]>): Buffer {
  return Buffer.concat(
    records.map(([key, value]) => {
      const body = ` ${key}=${value}\n`;
      const bytes = Buffer.byteLength(body);
      let total = bytes + 1;
      while (total !== bytes + String(total).length) total = bytes + String(total).length;
      return Buffer.from(`${total}${body}`, 'utf8');
    }),
  );
}

/** The records of a pax header's data; throws TarFormatError when they do not parse. */
export function readPaxRecords(data: Buffer): Array<[key: string, value: string]> {
  const records: Array<[string, string]> = [];
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const length = Number.parseInt(data.subarray(offset, space).toString('latin1'), 10);
    if (space < 0 || !Number.isSafeInteger(length) || length <= 0 || offset + length > data.length)
      throw new TarFormatError('a pax record does not parse');
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals < 0) throw new TarFormatError('a pax record has no =');
    records.push([record.slice(0, equals), record.slice(equals + 1)]);
    offset += length;
  }
  return records;
}
