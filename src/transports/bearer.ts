// Bearer authentication for the MCP path. Tokens are compared as SHA-256 digests with
// timingSafeEqual: equal lengths always, and no early exit that leaks how much matched.
import { createHash, timingSafeEqual } from 'node:crypto';

export class BearerCheck {
  private readonly expected: Buffer;

  constructor(token: string) {
    this.expected = digest(token);
  }

  /** True when the Authorization header is `Bearer <the configured token>`. */
  matches(authorization: string | undefined): boolean {
    const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
    // Compare even when absent, so a missing header costs the same as a wrong one.
    return timingSafeEqual(digest(presented ?? ''), this.expected) && presented !== undefined;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
