// gitea-warden init: a starter set of profiles for a real team (the reference profiles' operation
// lists, with the team's own logins, token variables and repositories) and the matching MCP client
// configuration. Nothing is overwritten without --force; what it writes passes `check`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isMap, isScalar, parseDocument } from 'yaml';
import { profilesDir } from '../shared/paths.js';
import { errorMessage, fail } from './policy-context.js';

const ROLES = ['author', 'reviewer', 'merger', 'reconciler'] as const;
type Role = (typeof ROLES)[number];
const CLIENTS = ['claude-code', 'vscode', 'cursor'] as const;
type Client = (typeof CLIENTS)[number];

/** Where each client reads its project configuration, and how it expands a variable of the environment. */
const CLIENT_FILES: Record<
  Client,
  { file: string; fromEnv: (name: string) => string; profilePath: (file: string) => string }
> = {
  // Claude Code starts project servers in the project directory and expands ${VAR} from its environment.
  'claude-code': { file: '.mcp.json', fromEnv: (name) => `\${${name}}`, profilePath: (file) => file },
  vscode: {
    file: '.vscode/mcp.json',
    fromEnv: (name) => `\${env:${name}}`,
    profilePath: (file) => `\${workspaceFolder}/${file}`,
  },
  cursor: {
    file: '.cursor/mcp.json',
    fromEnv: (name) => `\${env:${name}}`,
    profilePath: (file) => `\${workspaceFolder}/${file}`,
  },
};

const HELP = `usage: gitea-warden init [--author LOGIN] [--reviewer LOGIN] [--merger LOGIN] [--reconciler LOGIN]
                         [--login-from-env VAR] [--<role>-token-var VAR] [--repo OWNER/NAME ...]
                         [--client claude-code|vscode|cursor] [--dir DIR] [--force]

Writes starter profiles (profiles/gitea-<role>.yaml) for the roles given a Gitea login, with the
reference profiles' operation lists, and the client configuration that starts one namespace per
role. Each role is a separate Gitea user with its own token.

  --author LOGIN ...       the Gitea login of each role's user (one profile per role given)
  --login-from-env VAR     one-person setup: every role not given a login gets a profile that
                           reads its login from VAR at start (authenticated_username_from_env)
  --<role>-token-var VAR   the variable holding that role's token (default GITEA_<ROLE>_TOKEN)
  --repo OWNER/NAME        limit every profile to these repositories (repeat; owner/* for an owner)
  --client NAME            also write the client configuration: claude-code (.mcp.json),
                           vscode (.vscode/mcp.json) or cursor (.cursor/mcp.json)
  --dir DIR                where to write (default: the working directory)
  --force                  overwrite existing files

Exit 0 written, 2 unusable input or a file that exists (nothing is written then).
`;

/** Gitea's own rule for user names (models/user: IsValidUsername): alphanumerics, dash, underscore, dot. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,38}[A-Za-z0-9])?$/;
const VARIABLE = /^[A-Z_][A-Z0-9_]*$/;
const REPOSITORY = /^[A-Za-z0-9._-]+\/(?:\*|[A-Za-z0-9._-]+)$/;

interface Plan {
  dir: string;
  roles: Array<{ role: Role; login: string | null; tokenVariable: string }>;
  loginVariable: string | null;
  repositories: string[];
  client: Client | null;
}

export async function run(argv: string[]): Promise<number> {
  let plan: Plan;
  let force: boolean;
  try {
    const parsed = parse(argv);
    if (parsed === 'help') {
      process.stdout.write(HELP);
      return 0;
    }
    ({ plan, force } = parsed);
  } catch (error) {
    return fail('init', errorMessage(error));
  }
  const files = planFiles(plan);
  const existing = files.filter((file) => existsSync(file.path));
  if (existing.length > 0 && !force) {
    return fail(
      'init',
      `not overwriting ${existing.map((file) => shown(file.path)).join(', ')} (--force replaces them); nothing was written`,
    );
  }
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.text);
    process.stdout.write(`wrote ${shown(file.path)}\n`);
  }
  process.stdout.write(nextSteps(plan));
  return 0;
}

function parse(argv: string[]): { plan: Plan; force: boolean } | 'help' {
  const options = {
    ...Object.fromEntries(
      ROLES.flatMap((role) => [
        [role, { type: 'string' }],
        [`${role}-token-var`, { type: 'string' }],
      ]),
    ),
    'login-from-env': { type: 'string' },
    repo: { type: 'string', multiple: true },
    client: { type: 'string' },
    dir: { type: 'string' },
    force: { type: 'boolean' },
    help: { type: 'boolean' },
  } as const;
  const { values } = parseArgs({
    args: argv,
    options: options as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>,
  });
  if (values.help) return 'help';
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const loginVariable = text('login-from-env') ?? null;
  if (loginVariable !== null && !VARIABLE.test(loginVariable))
    throw new Error(`--login-from-env wants a variable name like GITEA_LOGIN, not '${loginVariable}'`);
  const given = ROLES.filter((role) => text(role) !== undefined);
  const roles = (loginVariable === null ? given : [...ROLES]).map((role) => {
    const login = text(role) ?? null;
    if (login !== null && !LOGIN.test(login))
      throw new Error(`--${role}: '${login}' is not a Gitea login (letters, digits, '-', '_', '.')`);
    const tokenVariable = text(`${role}-token-var`) ?? `GITEA_${role.toUpperCase()}_TOKEN`;
    if (!VARIABLE.test(tokenVariable))
      throw new Error(`--${role}-token-var wants a variable name like GITEA_${role.toUpperCase()}_TOKEN`);
    return { role, login, tokenVariable };
  });
  for (const role of ROLES) {
    if (text(`${role}-token-var`) !== undefined && !roles.some((planned) => planned.role === role))
      throw new Error(`--${role}-token-var without --${role} LOGIN`);
  }
  if (roles.length === 0)
    throw new Error('name at least one role and its Gitea login (--author LOGIN ...), or --login-from-env VAR');
  const logins = roles.flatMap((planned) => (planned.login ? [planned.login.toLowerCase()] : []));
  if (new Set(logins).size < logins.length) {
    // Gitea logins are case-insensitive; one user in two roles would approve or merge its own work.
    throw new Error('each role needs its own Gitea user: the same login is given to two roles');
  }
  const repositories = (values.repo as string[] | undefined) ?? [];
  const badRepository = repositories.find((repository) => !REPOSITORY.test(repository));
  if (badRepository !== undefined) throw new Error(`--repo wants OWNER/NAME (or OWNER/*), not '${badRepository}'`);
  const client = text('client') ?? null;
  if (client !== null && !(CLIENTS as readonly string[]).includes(client))
    throw new Error(`--client must be one of: ${CLIENTS.join(', ')}`);
  const plan: Plan = {
    dir: resolve(text('dir') ?? '.'),
    roles,
    loginVariable,
    repositories,
    client: client as Client | null,
  };
  return { plan, force: values.force === true };
}

function planFiles(plan: Plan): Array<{ path: string; text: string }> {
  const profiles = plan.roles.map((planned) => ({
    path: join(plan.dir, profileFile(planned.role)),
    text: profileText(plan, planned),
  }));
  if (plan.client === null) return profiles;
  return [...profiles, { path: join(plan.dir, CLIENT_FILES[plan.client].file), text: clientConfig(plan, plan.client) }];
}

const profileFile = (role: Role) => `profiles/gitea-${role}.yaml`;

/** The reference profile of the role, comments kept, with this team's identity and scope. */
function profileText(plan: Plan, planned: Plan['roles'][number]): string {
  // The schema comment points into the package's own policies/, which is not beside the user's profiles.
  const reference = readFileSync(join(profilesDir, `gitea-${planned.role}.yaml`), 'utf8').replace(
    /^# yaml-language-server:.*\n/,
    '',
  );
  const doc = parseDocument(reference);
  if (planned.login !== null) {
    doc.set('authenticated_username', planned.login);
  } else {
    // In the place of authenticated_username, so the profile says where its login comes from.
    const pair = isMap(doc.contents)
      ? doc.contents.items.find((item) => isScalar(item.key) && item.key.value === 'authenticated_username')
      : undefined;
    if (!pair) throw new Error(`the reference profile gitea-${planned.role} has no authenticated_username`);
    pair.key = doc.createNode('authenticated_username_from_env') as unknown as typeof pair.key;
    pair.value = doc.createNode(plan.loginVariable) as unknown as typeof pair.value;
  }
  doc.set('token_source_name', planned.tokenVariable);
  if (plan.repositories.length > 0) doc.set('repositories', doc.createNode(plan.repositories, { flow: true }));
  // The reference names the sandbox's organisation as its trust domain; this team's is that of its repositories.
  const owners = [
    ...new Set(plan.repositories.map((pattern) => pattern.split('/')[0] ?? '').filter((o) => /^[\w.-]+$/.test(o))),
  ];
  if (doc.hasIn(['integrity', 'trusted_orgs'])) {
    if (owners.length > 0) doc.setIn(['integrity', 'trusted_orgs'], doc.createNode(owners, { flow: true }));
    else doc.deleteIn(['integrity', 'trusted_orgs']);
  }
  const who = planned.login === null ? `the login in $${plan.loginVariable}` : planned.login;
  return `# Written by gitea-warden init for ${who}; lint with: gitea-warden check profiles/\n${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}`;
}

function clientConfig(plan: Plan, client: Client): string {
  const { fromEnv, profilePath } = CLIENT_FILES[client];
  const servers = Object.fromEntries(
    plan.roles.map((planned) => {
      const env: Record<string, string> = {
        GITEA_URL: fromEnv('GITEA_URL'),
        GITEA_MCP_PROFILE: profilePath(profileFile(planned.role)),
        [planned.tokenVariable]: fromEnv(planned.tokenVariable),
        ...(planned.login === null && plan.loginVariable ? { [plan.loginVariable]: fromEnv(plan.loginVariable) } : {}),
      };
      return [`gitea-${planned.role}`, { type: 'stdio', command: 'gitea-warden', args: ['serve'], env }];
    }),
  );
  const config = client === 'vscode' ? { servers } : { mcpServers: servers };
  return `${JSON.stringify(config, null, 2)}\n`;
}

function nextSteps(plan: Plan): string {
  const variables = [
    ...new Set(
      plan.roles.flatMap((planned) => [
        planned.tokenVariable,
        ...(planned.login === null && plan.loginVariable ? [plan.loginVariable] : []),
      ]),
    ),
  ];
  const profiles = shown(join(plan.dir, 'profiles'));
  const shared = plan.roles.filter((planned) => planned.login === null).length > 1;
  const lines = [
    '',
    ...(shared
      ? [
          `note: one login for several roles: the guards refuse approving or merging that login's own pull requests;`,
          `      a reviewer or merger that must approve your work needs a Gitea user of its own (--reviewer LOGIN).`,
          '',
        ]
      : []),
    'next:',
    `  gitea-warden check ${profiles}/`,
    `  export GITEA_URL=https://gitea.example.com   # your Gitea, without /api/v1`,
    ...variables.map((variable) => `  export ${variable}=...`),
    plan.client
      ? `  then restart ${plan.client === 'claude-code' ? 'Claude Code' : plan.client === 'vscode' ? 'VS Code' : 'Cursor'} in ${shown(plan.dir)}: it starts one namespace per role from ${CLIENT_FILES[plan.client].file}`
      : `  then: GITEA_MCP_PROFILE=${profiles}/${`gitea-${plan.roles[0]?.role ?? 'author'}`}.yaml gitea-warden serve`,
  ];
  return `${lines.join('\n')}\n`;
}

function shown(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath === '' ? '.' : relativePath.startsWith('..') ? path : relativePath;
}
