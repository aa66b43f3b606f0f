// The audit log as the server uses it: opened once at start; when it cannot be opened the server
// still starts, and every tool call is refused (audit_unavailable) rather than run unaudited.
import { AuditLog } from '../audit/log.js';
import type { AuditEvent } from '../audit/event.js';

export class AuditSink {
  private constructor(
    readonly path: string,
    private readonly log: AuditLog | null,
    /** Why the log could not be opened (a path and an errno code, nothing secret). */
    readonly openFailure: string | null,
  ) {}

  static async open(path: string): Promise<AuditSink> {
    try {
      return new AuditSink(path, await AuditLog.open(path), null);
    } catch (error) {
      return new AuditSink(path, null, error instanceof Error ? error.message : 'cannot open the audit log');
    }
  }

  /** True once the event is durable; false when it could not be written. */
  async append(event: AuditEvent): Promise<boolean> {
    if (this.log === null) return false;
    try {
      await this.log.append(event);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.log?.close();
  }
}
