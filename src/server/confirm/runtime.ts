// What one namespace needs to ask a person: its confirmation settings (policy file and profile), the
// sealer of request states, the shared state store where answers are spent (opened on first use:
// a namespace whose calls never need a person never opens it), and the base URL of the confirmation
// page this server serves, once its HTTP transport listens. Built at start, kept across calls.
import { randomBytes } from 'node:crypto';
import { ApprovalService } from '../../auth/approval-service.js';
import { ConfirmationStore } from '../../auth/confirmation-store.js';
import { GiteaOAuthClient } from '../../gitea/oauth-upstream.js';
import { migrate } from '../../auth/migrations.js';
import { defaultStorePath } from '../../auth/oauth-setup.js';
import { openPostgres } from '../../auth/postgres-driver.js';
import { Sealer } from '../../auth/sealing.js';
import { openSqlite } from '../../auth/sqlite-driver.js';
import type { SqlDriver } from '../../auth/sql-driver.js';
import { confirmationSettings, type ConfirmationSettings } from '../../policy/confirmations.js';
import type { CompiledProfile } from '../../policy/profile.js';
import type { PolicySet } from '../../policy-files/policy-set.js';
import { StartupError } from '../../shared/startup-error.js';
import { CONFIRMATION_KEY_SETTING, StateSealer } from './request-state.js';

export class ConfirmRuntime {
  private constructor(
    readonly settings: ConfirmationSettings,
    readonly states: StateSealer,
    /** Seals what the approval page keeps between Gitea's redirect and its callback (the PKCE verifier). */
    readonly pageSealer: Sealer,
    private readonly openStore: () => Promise<SqlDriver>,
    readonly now: () => number,
    /** Shared by every profile's runtime of this process: the page's public base URL, the opened store. */
    private readonly shared: { page: string | null; store: Promise<ConfirmationStore> | null } = {
      page: null,
      store: null,
    },
  ) {}

  /**
   * CONFIRMATION_KEY seals the states (replicas must share it); unset, a key made for this process
   * does, which is refused with a PostgreSQL store (several replicas) at start.
   */
  static open(
    policy: PolicySet,
    profile: CompiledProfile,
    store: { setting: string | null; env: NodeJS.ProcessEnv },
    now: () => number = Date.now,
  ): ConfirmRuntime {
    const key = store.env[CONFIRMATION_KEY_SETTING] ?? null;
    const replicated = store.setting !== null && /^postgres(ql)?:\/\//.test(store.setting);
    if (key === null && replicated)
      throw new StartupError(
        `${CONFIRMATION_KEY_SETTING} must be set (32+ characters, the same on every replica) when the state store is PostgreSQL: ` +
          'a confirmation asked by one replica is answered at another',
      );
    const material = key ?? randomBytes(32).toString('hex');
    let states: StateSealer;
    let pageSealer: Sealer;
    try {
      states = new StateSealer(material);
      pageSealer = new Sealer(material, { purpose: 'gitea-warden approval page', setting: CONFIRMATION_KEY_SETTING });
    } catch (error) {
      throw new StartupError(error instanceof Error ? error.message : `${CONFIRMATION_KEY_SETTING} is unusable`);
    }
    const openDriver = () =>
      replicated && store.setting !== null
        ? openPostgres(store.setting)
        : Promise.resolve(openSqlite(store.setting ?? defaultStorePath(store.env)));
    return new ConfirmRuntime(
      confirmationSettings(policy.confirmations, profile, policy.vocabulary),
      states,
      pageSealer,
      openDriver,
      now,
    );
  }

  /** The same runtime for another profile (gitea_activate_profile): its settings, the same store and page. */
  forProfile(policy: PolicySet, profile: CompiledProfile): ConfirmRuntime {
    return new ConfirmRuntime(
      confirmationSettings(policy.confirmations, profile, policy.vocabulary),
      this.states,
      this.pageSealer,
      this.openStore,
      this.now,
      this.shared,
    );
  }

  /** The shared state store, migrated; opened once per process, on first use. */
  store(): Promise<ConfirmationStore> {
    this.shared.store ??= this.openStore().then(async (driver) => {
      await migrate(driver);
      return new ConfirmationStore(driver, this.now);
    });
    // A store that failed to open is tried again by the next call, not remembered broken.
    this.shared.store.catch(() => (this.shared.store = null));
    return this.shared.store;
  }

  /**
   * The confirmation page's logic for the HTTP transport, which serves it at `base` (its public base
   * URL) from now on: approvers sign in with the Gitea OAuth2 application of OAUTH_CLIENT_ID, whose
   * redirect URIs must include <base>/confirm/callback.
   */
  approvalService(app: { giteaUrl: string; clientId: string; clientSecret: string; timeoutMs: number }, base: string) {
    const page = base.replace(/\/+$/, '');
    const service = new ApprovalService({
      store: () => this.store(),
      sealer: this.pageSealer,
      upstream: new GiteaOAuthClient({
        baseUrl: app.giteaUrl,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        timeoutMs: app.timeoutMs,
      }),
      callbackUrl: `${page}/confirm/callback`,
      giteaUrl: app.giteaUrl,
      now: this.now,
    });
    this.shared.page = page;
    return service;
  }

  /** The confirmation page's public base URL (…/confirm/<id> lives below it); null until, or unless, HTTP serves it. */
  get pageBase(): string | null {
    return this.shared.page;
  }

  async close(): Promise<void> {
    const store = this.shared.store;
    this.shared.store = null;
    if (store) await (await store.catch(() => null))?.close();
  }
}
