// Contracts shared by the Gitea-facing shell: the identity a call runs as, and the narrow
// read interface the guards' fact gatherers use (implemented by the HTTP client).

export interface GiteaIdentity {
  /** Base URL of the Gitea server, without /api/v1. */
  baseUrl: string;
  /** The token value. Never logged, never returned; redaction keys on it. */
  token: string;
  /** Login the profile claims (authenticated_username); verified by GET /user at start. */
  expectedLogin?: string;
}

export interface ReadResult {
  status: number;
  data: unknown;
  /** X-Total-Count of a list answer, when Gitea sent one. */
  totalCount?: number | null;
}

/** What a fact gatherer needs from Gitea: authenticated GETs below /api/v1, already encoded paths. */
export interface FactReader {
  get(path: string, query?: Record<string, string | number | boolean>): Promise<ReadResult>;
}

export interface WriteResult {
  status: number;
}

/** The few writes the guarded reconciler tools perform, each only after its guard passed. */
export interface GiteaWriter {
  deleteBranch(owner: string, repo: string, branch: string): Promise<WriteResult>;
  closePull(owner: string, repo: string, index: number): Promise<WriteResult>;
  commentIssue(owner: string, repo: string, index: number, body: string): Promise<WriteResult>;
}
