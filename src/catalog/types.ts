// The shape of one generated catalog entry (src/catalog/tools.json). Generated from the pinned
// Gitea spec by src/catalog/generate.ts; read at run time by src/catalog/load.ts. Nothing else
// describes an operation: the policy map, the executor, the route table and the docs all key on it.

import type { RepositoryReach } from './reach.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** JSON Schema as plain data (draft-07 subset that ajv compiles). */
export type JsonSchema = { [key: string]: unknown };

export interface CatalogParameter {
  /** Name as Gitea spells it (the input-schema property name too). */
  name: string;
  required: boolean;
  description?: string;
  /** JSON Schema of the value, `$ref`s resolved. */
  schema: JsonSchema;
}

export interface CatalogPathParameter extends CatalogParameter {
  /** Served by a Gitea wildcard route: the value may contain `/` and is not escaped as %2F. */
  wildcard: boolean;
}

export interface CatalogEntry {
  /** MCP tool name: `gitea_<domain>_<action>`, unique, ^[a-z0-9_]{1,48}$. */
  name: string;
  operationId: string;
  /** Finer than Gitea's tags: pulls, branches, contents, releases, actions, issues, ... */
  domain: string;
  /** Gitea's first tag for the operation (admin, repository, issue, ...). */
  tag: string;
  method: HttpMethod;
  /** Path template below /api/v1, e.g. /repos/{owner}/{repo}/pulls/{index}/merge. */
  path: string;
  summary: string;
  description?: string;
  /** Gitea marks the operation deprecated (a newer one does the same); kept out of static listings. */
  deprecated?: true;
  parameters: {
    path: CatalogPathParameter[];
    query: CatalogParameter[];
    header: CatalogParameter[];
    /** Non-file multipart / urlencoded fields. */
    form: CatalogParameter[];
    /** Multipart file fields; the tool takes them as base64 strings. */
    file: CatalogParameter[];
    /** The JSON request body, exposed as the `body` property whatever the spec names it. */
    body: { required: boolean; schema: JsonSchema } | null;
  };
  consumes: string[];
  produces: string[];
  annotations: {
    readOnly: boolean;
    destructive: boolean;
    idempotent: boolean;
    paginated: boolean;
  };
  /** The MCP input schema: type object, additionalProperties false, every $ref inlined. */
  inputSchema: JsonSchema;
  /** Which repositories the operation can reach, derived from the spec (src/catalog/reach.ts). */
  reach: RepositoryReach;
  /**
   * The Gitea token scopes a call needs (every one), from Gitea's route groups (src/catalog/token-scopes.ts);
   * null where that source places no such route, so Gitea alone decides.
   */
  tokenScopes: string[] | null;
}

export interface Catalog {
  /** Spec identity, so drift is visible: title, version and sha256 of the spec file. */
  source: { title: string; version: string; sha256: string };
  entries: CatalogEntry[];
}
