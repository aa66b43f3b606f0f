// The state a pending confirmation travels in: the MCP client echoes it back with the person's answer
// (the 2026-07-28 requestState; for a 2025 stdio client the server carries it between rounds itself). It is sealed with
// AES-256-GCM under a key from CONFIRMATION_KEY, so the client can neither read nor forge it, and
// carries its binding (principal, operation, tool, arguments, repository id, pull request, head), its
// expiry and a random id that the shared store spends once. A reveal's state also carries the values
// to show, which is why it is encrypted and not only signed.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Sealer, SealingError } from '../../auth/sealing.js';
import type { Approver, ConfirmBinding } from '../../policy/confirmations.js';

const PREFIX = 'gwq1.';
/** Authenticated with the ciphertext: a value sealed for another use does not open as a state. */
const CONTEXT = 'gitea-warden confirmation state v1';
export const CONFIRMATION_KEY_SETTING = 'CONFIRMATION_KEY';
const PURPOSE = { purpose: 'gitea-warden confirmation state', setting: CONFIRMATION_KEY_SETTING };
/** A client echoes the state it was given; anything much larger was not ours. */
const MAX_STATE_CHARS = 512 * 1024;

/** Values a reveal shows in clear once confirmed: each as it appears in the redacted result, and in clear. */
export interface RevealPayload {
  /** The result as returned without the reveal (redacted, masked). */
  payload: Record<string, unknown>;
  values: Array<{ shown: string; value: string; fingerprint: string }>;
}

export interface ConfirmState {
  v: 1;
  /** confirm: the call waits for a person before it acts; reveal: a result waits before its secrets are shown. */
  kind: 'confirm' | 'reveal';
  /** Spent in the shared store once used, declined or voided. */
  id: string;
  binding: ConfirmBinding;
  approver: Approver;
  /** The browser approval a signed_in or four_eyes question waits for. */
  approval: string | null;
  issuedAt: number;
  expiresAt: number;
  reveal?: RevealPayload;
}

export type OpenedState = { ok: true; state: ConfirmState } | { ok: false; why: string };

export class StateSealer {
  private readonly sealer: Sealer;
  /** Whether the key came from CONFIRMATION_KEY (shared by replicas) or was made for this process. */
  readonly shared: boolean;

  /** `key`: CONFIRMATION_KEY; null makes a random key for this process (one replica, stdio). */
  constructor(key: string | null) {
    this.shared = key !== null;
    this.sealer = new Sealer(key ?? randomBytes(32).toString('hex'), PURPOSE);
  }

  seal(state: ConfirmState): string {
    const packed = deflateRawSync(Buffer.from(JSON.stringify(state), 'utf8')).toString('base64');
    return `${PREFIX}${this.sealer.seal(packed, CONTEXT)}`;
  }

  /** Never throws: a value that does not open says why in words a person can act on, never what it held. */
  open(value: unknown): OpenedState {
    if (typeof value !== 'string' || !value.startsWith(PREFIX) || value.length > MAX_STATE_CHARS)
      return { ok: false, why: 'it is not a confirmation state of this server' };
    let text: string;
    try {
      text = inflateRawSync(Buffer.from(this.sealer.open(value.slice(PREFIX.length), CONTEXT), 'base64')).toString(
        'utf8',
      );
    } catch (error) {
      return {
        ok: false,
        why:
          error instanceof SealingError
            ? `it was altered, forged, or sealed under another ${CONFIRMATION_KEY_SETTING}`
            : 'it does not unpack',
      };
    }
    const state = JSON.parse(text) as ConfirmState;
    return state.v === 1 ? { ok: true, state } : { ok: false, why: 'it has an unknown version' };
  }
}

export function newStateId(): string {
  return randomUUID();
}

/** The call's arguments as a digest: canonical JSON (sorted keys) without the confirmation options. */
export function argumentsDigest(args: Readonly<Record<string, unknown>>): string {
  const { confirmation: _c, reveal_secrets: _r, ...rest } = args;
  return createHash('sha256').update(canonical(rest), 'utf8').digest('base64url');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
