// Signed checkpoints: a line in the chain that signs (with Ed25519) the chain's head at that point,
// so a rewrite that recomputes every hash, a replaced file or a cut-off tail shows against a key the
// agent never held. The writer keeps a copy of its latest checkpoint line in a file beside the log;
// `audit verify --public-key` needs that copy to see a log cut back past it.
//
// A checkpoint line: {seq, phase:"checkpoint", time, checkpoint:{covers, head, key_id, signature,
// unsigned_before?}, prev, hash}. `covers` is the seq of the line before it and `head` equals `prev`
// (the SHA-256 of that line). `unsigned_before` counts lines found after the previous checkpoint
// when the writer started (a crash, or lines written while no server ran): verify names them.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex } from './chain.js';

export interface CheckpointBody {
  covers: number;
  head: string;
  key_id: string;
  signature: string;
  unsigned_before?: number;
}

export interface CheckpointLine {
  seq: number;
  phase: 'checkpoint';
  time: string;
  checkpoint: CheckpointBody;
  prev: string;
  hash: string;
}

export interface Signer {
  key: KeyObject;
  keyId: string;
  /** The key's public half: a writer checks what it finds at start as `audit verify` would. */
  publicKey: KeyObject;
}

/** What is signed: the checkpoint's place in the chain and its time, in a fixed, versioned shape. */
function signedMessage(
  covers: number,
  head: string,
  time: string,
  keyId: string,
  unsignedBefore: number | undefined,
): Buffer {
  const fields = {
    type: 'gitea-warden-audit-checkpoint/1',
    covers,
    head,
    time,
    key_id: keyId,
    unsigned_before: unsignedBefore,
  };
  return Buffer.from(canonicalJson(fields), 'utf8');
}

/** The id of a key: the first 16 hex digits of the SHA-256 of its public key (SPKI DER). */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

export class SigningKeyError extends Error {
  override name = 'SigningKeyError';
}

/** Reads an Ed25519 private key (PEM, PKCS#8); the message names the file and the problem, never key material. */
export function signerFromPem(pem: string, source: string): Signer {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new SigningKeyError(`${source} is not a PEM private key (make one with 'gitea-warden audit keygen')`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new SigningKeyError(`${source} is a ${key.asymmetricKeyType ?? 'unknown'} key; an Ed25519 key is needed`);
  return { key, keyId: keyIdOf(key), publicKey: createPublicKey(key) };
}

/** Reads an Ed25519 public key (PEM, SPKI). A private key is refused: verify must not need it. */
export function publicKeyFromPem(pem: string, source: string): KeyObject {
  if (/PRIVATE KEY/.test(pem)) throw new SigningKeyError(`${source} holds a private key; give verify the public key`);
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new SigningKeyError(`${source} is not a PEM public key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`${source} is not an Ed25519 public key`);
  return key;
}

/** Seals a checkpoint line signing the head `prev` at line `seq - 1`. */
export function sealCheckpoint(
  signer: Signer,
  seq: number,
  prev: string,
  time: string,
  unsignedCount?: number,
): { line: string } {
  const covers = seq - 1;
  const unsignedBefore = unsignedCount === undefined || unsignedCount === 0 ? undefined : unsignedCount;
  const signature = sign(null, signedMessage(covers, prev, time, signer.keyId, unsignedBefore), signer.key).toString(
    'base64',
  );
  const checkpoint: CheckpointBody = {
    covers,
    head: prev,
    key_id: signer.keyId,
    signature,
    ...(unsignedBefore ? { unsigned_before: unsignedBefore } : {}),
  };
  const unsealed = { seq, phase: 'checkpoint' as const, time, checkpoint, prev };
  return { line: JSON.stringify({ ...unsealed, hash: sha256Hex(canonicalJson(unsealed)) }) };
}

/** The parsed checkpoint when `line` is a checkpoint line, else null. Does not check the signature. */
export function asCheckpoint(line: string): CheckpointLine | null {
  if (!line.includes('"phase":"checkpoint"')) return null;
  try {
    const parsed = JSON.parse(line) as Partial<CheckpointLine>;
    const body = parsed.checkpoint;
    if (parsed.phase !== 'checkpoint' || body === null || typeof body !== 'object') return null;
    return parsed as CheckpointLine;
  } catch {
    return null;
  }
}

/** Null when the checkpoint is signed by `publicKey` and signs its own prev; else why not. */
export function checkCheckpoint(checkpoint: CheckpointLine, publicKey: KeyObject): string | null {
  const body = checkpoint.checkpoint;
  if (body.head !== checkpoint.prev || body.covers !== checkpoint.seq - 1) return 'its head is not the line before it';
  if (body.key_id !== keyIdOf(publicKey))
    return `it is signed by key ${String(body.key_id)}, not by the given public key (${keyIdOf(publicKey)})`;
  let valid = false;
  try {
    const message = signedMessage(body.covers, body.head, checkpoint.time, body.key_id, body.unsigned_before);
    valid = verify(null, message, publicKey, Buffer.from(String(body.signature), 'base64'));
  } catch {
    valid = false;
  }
  return valid ? null : 'its signature does not verify (the lines it covers were rewritten, or it was forged)';
}
