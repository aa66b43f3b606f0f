// Secrets at rest in the token store. Gitea's tokens (and registered clients' secrets) are sealed
// with AES-256-GCM under a key derived from TOKEN_ENCRYPTION_KEY; our own tokens are kept only as
// SHA-256 hashes, so a copy of the store lets nobody call Gitea or this server.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

export const MIN_ENCRYPTION_KEY_LENGTH = 32;
const FORMAT = 'v1';

export class SealingError extends Error {
  override name = 'SealingError';
}

/** What a Sealer seals for, and the setting its key comes from (named in its errors). */
export interface SealerPurpose {
  /** HKDF salt: keys for different purposes differ even from the same material. */
  purpose: string;
  setting: string;
}

const TOKEN_STORE: SealerPurpose = { purpose: 'gitea-warden token store', setting: 'TOKEN_ENCRYPTION_KEY' };

export class Sealer {
  private readonly key: Buffer;
  private readonly setting: string;

  /** `material` is TOKEN_ENCRYPTION_KEY (or another purpose's key): any string of at least 32 characters (e.g. openssl rand -hex 32). */
  constructor(material: string, { purpose, setting }: SealerPurpose = TOKEN_STORE) {
    this.setting = setting;
    if (material.trim().length < MIN_ENCRYPTION_KEY_LENGTH) {
      throw new SealingError(`${setting} must be at least ${MIN_ENCRYPTION_KEY_LENGTH} characters`);
    }
    // HKDF rather than the raw string: the key is uniform whatever the operator typed.
    this.key = Buffer.from(hkdfSync('sha256', material, purpose, 'aes-256-gcm v1', 32));
  }

  /** `context` (e.g. the row id and column) is authenticated too: a sealed value moved to another row does not open. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      FORMAT,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  open(sealed: string, context: string): string {
    const [format, iv, tag, body] = sealed.split('.');
    if (format !== FORMAT || iv === undefined || tag === undefined || body === undefined)
      throw new SealingError('not a sealed value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // Wrong key or tampered row; the message says which setting to check, never the value.
      throw new SealingError(
        `a sealed value does not open: ${this.setting} differs from the one it was sealed with, or the value was altered`,
      );
    }
  }
}

/** The only form in which the store keeps our own tokens and codes. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** An unguessable token with a prefix that says what it is (gwa_ access, gwr_ refresh, gwc_ code, ...). */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}
