// JSON Schema of a seed file (the shape `defaultSeed()` returns), so `--seed FILE` mistakes are
// reported as file:line and JSON path before anything starts.
const login = { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' };
const text = { type: 'string' };
const logins = { type: 'array', items: login };

const commit = {
  type: 'object',
  additionalProperties: false,
  required: ['message', 'author', 'files'],
  properties: {
    message: text,
    author: login,
    files: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
  },
};

const repo = {
  type: 'object',
  additionalProperties: false,
  required: ['owner', 'name', 'branches'],
  properties: {
    owner: login,
    name: login,
    private: { type: 'boolean' },
    description: text,
    default_branch: text,
    default_delete_branch_after_merge: { type: 'boolean' },
    allow_manual_merge: { type: 'boolean' },
    collaborators: { type: 'object', additionalProperties: { enum: ['read', 'write', 'admin'] } },
    branches: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: { name: text, from: text, commits: { type: 'array', items: commit } },
      },
    },
    protections: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['branch'],
        properties: {
          branch: text,
          required_approvals: { type: 'integer', minimum: 0 },
          enable_push: { type: 'boolean' },
          dismiss_stale_approvals: { type: 'boolean' },
          block_on_rejected_reviews: { type: 'boolean' },
        },
      },
    },
    labels: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'color'],
        properties: { name: text, color: { type: 'string', pattern: '^[0-9a-fA-F]{6}$' }, description: text },
      },
    },
    pulls: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'author', 'head', 'base'],
        properties: {
          title: text,
          body: text,
          author: login,
          head: text,
          base: text,
          merged_by: login,
          reviews: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['user', 'state'],
              properties: { user: login, state: { enum: ['APPROVED', 'REQUEST_CHANGES', 'COMMENT'] }, body: text },
            },
          },
        },
      },
    },
    wiki: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'content', 'author'],
        properties: { title: text, content: text, author: login },
      },
    },
    issues: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'author'],
        properties: {
          title: text,
          body: text,
          author: login,
          labels: { type: 'array', items: text },
          state: { enum: ['open', 'closed'] },
          comments: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['author', 'body'],
              properties: { author: login, body: text },
            },
          },
        },
      },
    },
  },
};

export const seedSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['users', 'repos'],
  properties: {
    users: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['login'],
        properties: {
          login,
          full_name: text,
          email: text,
          admin: { type: 'boolean' },
          password: text,
          token: text,
          token_scopes: { type: 'array', items: text },
          description: text,
          website: text,
          location: text,
        },
      },
    },
    orgs: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'teams'],
        properties: {
          name: login,
          full_name: text,
          description: text,
          website: text,
          location: text,
          teams: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'permission', 'members'],
              properties: {
                name: text,
                permission: { enum: ['read', 'write', 'admin', 'owner'] },
                members: logins,
                description: text,
                visibility: { enum: ['public', 'limited', 'private'] },
              },
            },
          },
        },
      },
    },
    repos: { type: 'array', items: repo },
  },
} as const;
