// gitea-warden init: a starter set of profiles for a real team (the reference profiles' operation
// lists, with the team's own logins, trust, token variables and repositories) and the matching MCP
// client configuration. Profiles go to the user's config directory by default: outside every
// repository, so an agent working in one cannot widen its own profile. Nothing is overwritten without
// --force; what it writes passes `check`, and no name of the reference profiles' sandbox people stays.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isMap, isScalar, parseDocument, type Document } from 'yaml';
import { didYouMean } from '../policy/nearest.js';
import { profilesDir, userProfilesDir } from '../shared/paths.js';
import { errorMessage, fail } from './policy-context.js';
import { loadPolicySet } from '../policy-files/policy-set.js';
import { initTokenScopes } from './token-scope-lines.js';

const ROLES = ['author', 'reviewer', 'merger', 'reconciler'] as const;
type Role = (typeof ROLES)[number];
const CLIENTS = ['claude-code', 'vscode', 'cursor'] as const;
type Client = (typeof CLIENTS)[number];

interface ClientFile {
  file: string;
  fromEnv: (name: string) => string;
  /** The client's spelling of the project directory and of the user's home in a path. */
  project: string;
  home: string;
}

/** Where each client reads its project configuration, and how it expands variables in it. */
const CLIENT_FILES: Record<Client, ClientFile> = {
  // Claude Code starts project servers in the project directory and expands ${VAR} from its environment.
  'claude-code': { file: '.mcp.json', fromEnv: (name) => `\${${name}}`, project: '.', home: '${HOME}' },
  vscode: {
    file: '.vscode/mcp.json',
    fromEnv: (name) => `\${env:${name}}`,
    project: '${workspaceFolder}',
    home: '${userHome}',
  },
  cursor: {
    file: '.cursor/mcp.json',
    fromEnv: (name) => `\${env:${name}}`,
    project: '${workspaceFolder}',
    home: '${userHome}',
  },
};

const CLIENT_NAMES: Record<Client, string> = { 'claude-code': 'Claude Code', vscode: 'VS Code', cursor: 'Cursor' };

const HELP = `usage: gitea-warden init [--author LOGIN] [--reviewer LOGIN] [--merger LOGIN] [--reconciler LOGIN]
                         [--trust LOGIN ...] [--login-from-env VAR] [--<role>-token-var VAR]
                         [--repo OWNER/NAME ...] [--client claude-code|vscode|cursor]
                         [--profiles DIR] [--dir DIR] [--oauth] [--force]

Writes starter profiles (gitea-<role>.yaml) for the roles given a Gitea login, with the reference
profiles' operation lists and your team's people, and the client configuration that starts one
namespace per role. Each role is a separate Gitea user with its own token.

  --author LOGIN ...       the Gitea login of each role's user (one profile per role given)
  --trust LOGIN            more people whose issue and pull request text the agents read as is
                           (repeat, or comma-separated); every role's login is trusted by the others
  --login-from-env VAR     one-person setup: every role not given a login gets a profile that
                           reads its login from VAR at start (authenticated_username_from_env)
  --<role>-token-var VAR   the variable holding that role's token (default GITEA_<ROLE>_TOKEN)
  --repo OWNER/NAME        limit every profile to these repositories (repeat; owner/* for an owner)
  --oauth                  profiles for the shared service (AUTH_MODE=oauth), where each person signs
                           in with their own Gitea account: each role takes LOGINs and ORG/TEAMs who
                           may sign in to it (repeat, or comma-separated: --author ana,ben,acme/devs)
  --profiles DIR           where the profiles go (default: ${shownHome(userProfilesDir())},
                           outside every repository, where an agent cannot edit them)
  --client NAME            also write the client configuration into the project directory:
                           claude-code (.mcp.json), vscode (.vscode/mcp.json) or cursor (.cursor/mcp.json)
  --dir DIR                the project directory for --client (default: the working directory)
  --force                  overwrite existing files

Exit 0 written, 2 unusable input or a file that exists (nothing is written then).
`;

/** Gitea's own rule for user names (models/user: IsValidUsername): alphanumerics, dash, underscore, dot. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,38}[A-Za-z0-9])?$/;
/** An organization's team, as authenticated_teams takes it (policies/profile.schema.json). */
const TEAM = /^[A-Za-z0-9_.-]{1,64}\/[A-Za-z0-9_. -]{1,255}$/;
const VARIABLE = /^[A-Z_][A-Z0-9_]*$/;
const REPOSITORY = /^[A-Za-z0-9._-]+\/(?:\*|[A-Za-z0-9._-]+)$/;

interface PlannedRole {
  role: Role;
  /** The profile's user (authenticated_username); null: read from the login variable. */
  login: string | null;
  tokenVariable: string;
  /** --oauth: who may sign in to this role's namespace. */
  users: string[];
  teams: string[];
}

interface Plan {
  profiles: string;
  project: string;
  roles: PlannedRole[];
  loginVariable: string | null;
  trusted: string[];
  repositories: string[];
  client: Client | null;
  oauth: boolean;
}

const OPTIONS = {
  ...Object.fromEntries(
    ROLES.flatMap((role) => [
      [role, { type: 'string', multiple: true }],
      [`${role}-token-var`, { type: 'string' }],
    ]),
  ),
  trust: { type: 'string', multiple: true },
  'login-from-env': { type: 'string' },
  repo: { type: 'string', multiple: true },
  client: { type: 'string' },
  profiles: { type: 'string' },
  dir: { type: 'string' },
  oauth: { type: 'boolean' },
  force: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

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
  let files: Array<{ path: string; text: string }>;
  try {
    files = planFiles(plan);
  } catch (error) {
    return fail('init', errorMessage(error));
  }
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
  process.stdout.write(
    initTokenScopes(
      loadPolicySet(),
      files.map((file) => file.path).filter((p) => p.endsWith('.yaml')),
    ),
  );
  return 0;
}

function parse(argv: string[]): { plan: Plan; force: boolean } | 'help' {
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: OPTIONS as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>,
    }));
  } catch (error) {
    // node's message names the option; say which one was meant.
    const typed = /option '(--[^' ]+)/.exec(errorMessage(error))?.[1];
    const known = Object.keys(OPTIONS).map((name) => `--${name}`);
    throw new Error(`${errorMessage(error)}${typed ? didYouMean(typed, known) : ''}`);
  }
  if (values.help) return 'help';
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const list = (name: string): string[] => {
    const value = values[name];
    return (Array.isArray(value) ? value : [])
      .flatMap((item) => String(item).split(','))
      .map((item) => item.trim())
      .filter(Boolean);
  };
  const oauth = values.oauth === true;
  const loginVariable = text('login-from-env') ?? null;
  if (loginVariable !== null && !VARIABLE.test(loginVariable))
    throw new Error(`--login-from-env wants a variable name like GITEA_LOGIN, not '${loginVariable}'`);
  if (loginVariable !== null && oauth)
    throw new Error('--login-from-env is for one person; with --oauth each person signs in as themself');
  const given = ROLES.filter((role) => list(role).length > 0);
  const roles = (loginVariable === null ? given : [...ROLES]).map((role): PlannedRole => {
    const names = list(role);
    if (!oauth && names.length > 1)
      throw new Error(`--${role} takes one Gitea login (several people sign in to one namespace only with --oauth)`);
    for (const name of names) {
      if (oauth && name.includes('/')) {
        if (!TEAM.test(name)) throw new Error(`--${role}: '${name}' is not an organization's team (ORG/TEAM)`);
      } else if (!LOGIN.test(name)) {
        throw new Error(
          `--${role}: '${name}' is not a Gitea login (letters, digits, '-', '_', '.')${oauth ? ' nor ORG/TEAM' : ''}`,
        );
      }
    }
    const users = names.filter((name) => !name.includes('/'));
    const teams = names.filter((name) => name.includes('/'));
    if (oauth && users.length === 0)
      throw new Error(
        `--${role}: name at least one login beside teams: the first is the namespace's own user (authenticated_username)`,
      );
    const tokenVariable = text(`${role}-token-var`) ?? `GITEA_${role.toUpperCase()}_TOKEN`;
    if (!VARIABLE.test(tokenVariable))
      throw new Error(`--${role}-token-var wants a variable name like GITEA_${role.toUpperCase()}_TOKEN`);
    return { role, login: users[0] ?? null, tokenVariable, users: oauth ? users : [], teams };
  });
  for (const role of ROLES) {
    if (text(`${role}-token-var`) !== undefined && !roles.some((planned) => planned.role === role))
      throw new Error(`--${role}-token-var without --${role} LOGIN`);
  }
  if (roles.length === 0)
    throw new Error('name at least one role and its Gitea login (--author LOGIN ...), or --login-from-env VAR');
  const logins = roles.flatMap((planned) => (planned.login ? [planned.login.toLowerCase()] : []));
  if (!oauth && new Set(logins).size < logins.length) {
    // Gitea logins are case-insensitive; one user in two roles would approve or merge its own work.
    throw new Error('each role needs its own Gitea user: the same login is given to two roles');
  }
  const trusted = list('trust');
  const badTrust = trusted.find((name) => !LOGIN.test(name));
  if (badTrust !== undefined) {
    throw new Error(
      badTrust.includes('/')
        ? `--trust '${badTrust}': name the team's people (--trust LOGIN,LOGIN); a profile trusts people by login`
        : `--trust: '${badTrust}' is not a Gitea login (letters, digits, '-', '_', '.')`,
    );
  }
  const repositories = list('repo');
  const badRepository = repositories.find((repository) => !REPOSITORY.test(repository));
  if (badRepository !== undefined) throw new Error(`--repo wants OWNER/NAME (or OWNER/*), not '${badRepository}'`);
  const client = text('client') ?? null;
  if (client !== null && !(CLIENTS as readonly string[]).includes(client))
    throw new Error(`--client must be one of: ${CLIENTS.join(', ')}${didYouMean(client, CLIENTS)}`);
  const plan: Plan = {
    profiles: resolve(text('profiles') ?? userProfilesDir()),
    project: resolve(text('dir') ?? '.'),
    roles,
    loginVariable,
    trusted,
    repositories,
    client: client as Client | null,
    oauth,
  };
  return { plan, force: values.force === true };
}

function planFiles(plan: Plan): Array<{ path: string; text: string }> {
  const profiles = plan.roles.map((planned) => ({
    path: profileFile(plan, planned.role),
    text: profileText(plan, planned),
  }));
  if (plan.client === null) return profiles;
  return [
    ...profiles,
    { path: join(plan.project, CLIENT_FILES[plan.client].file), text: clientConfig(plan, plan.client) },
  ];
}

const profileFile = (plan: Plan, role: Role) => join(plan.profiles, `gitea-${role}.yaml`);

/** Everyone this role's profile trusts by name: the other roles' people and --trust, never its own login. */
function trustedBy(plan: Plan, planned: PlannedRole): string[] {
  const own = new Set([planned.login, ...planned.users].flatMap((login) => (login ? [login.toLowerCase()] : [])));
  const team = [...plan.roles.flatMap((other) => [other.login, ...other.users]), ...plan.trusted].flatMap((login) =>
    login && !own.has(login.toLowerCase()) ? [login] : [],
  );
  const seen = new Set<string>();
  return team.filter((login) => !seen.has(login.toLowerCase()) && seen.add(login.toLowerCase()));
}

/** The reference profile of the role, comments kept, with this team's identity, trust and scope. */
function profileText(plan: Plan, planned: PlannedRole): string {
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
  if (plan.oauth) {
    doc.set('authenticated_users', doc.createNode(planned.users, { flow: true }));
    if (planned.teams.length > 0) doc.set('authenticated_teams', doc.createNode(planned.teams, { flow: true }));
  }
  if (plan.repositories.length > 0) doc.set('repositories', doc.createNode(plan.repositories, { flow: true }));
  setTrust(doc, trustedBy(plan, planned));
  setTrustedOrgs(doc, plan.repositories);
  const who =
    planned.login === null
      ? `the login in $${plan.loginVariable}`
      : plan.oauth
        ? `the people who sign in (${[...planned.users, ...planned.teams].join(', ')})`
        : planned.login;
  const header = [
    `# gitea-${planned.role} for ${who}, written by gitea-warden init.`,
    '# READ-ONLY for agents: keep this file where no agent can write it (init puts it outside every repository).',
    '# The server reads it once at start; gitea_server_status shows restart_required after a change.',
    '# Lint with `gitea-warden check`; see what a change gains with `gitea-warden diff OLD NEW`.',
  ];
  return `${header.join('\n')}\n${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}`;
}

/** integrity.trusted_users: this team's people, not the reference profile's sandbox users. */
function setTrust(doc: Document, trusted: string[]): void {
  if (!doc.has('integrity')) return;
  if (trusted.length > 0) doc.setIn(['integrity', 'trusted_users'], doc.createNode(trusted, { flow: true }));
  else doc.deleteIn(['integrity', 'trusted_users']);
}

/** integrity.trusted_orgs: the owners of this team's repositories, not the reference's sandbox organisation (issue 28). */
function setTrustedOrgs(doc: Document, repositories: readonly string[]): void {
  const owners = [
    ...new Set(repositories.map((pattern) => pattern.split('/')[0] ?? '').filter((o) => /^[\w.-]+$/.test(o))),
  ];
  if (!doc.hasIn(['integrity', 'trusted_orgs'])) return;
  if (owners.length > 0) doc.setIn(['integrity', 'trusted_orgs'], doc.createNode(owners, { flow: true }));
  else doc.deleteIn(['integrity', 'trusted_orgs']);
}

function clientConfig(plan: Plan, client: Client): string {
  const { fromEnv } = CLIENT_FILES[client];
  const servers = Object.fromEntries(
    plan.roles.map((planned) => {
      const env: Record<string, string> = {
        GITEA_URL: fromEnv('GITEA_URL'),
        GITEA_MCP_PROFILE: profileInConfig(plan, client, profileFile(plan, planned.role)),
        [planned.tokenVariable]: fromEnv(planned.tokenVariable),
        ...(planned.login === null && plan.loginVariable ? { [plan.loginVariable]: fromEnv(plan.loginVariable) } : {}),
      };
      return [`gitea-${planned.role}`, { type: 'stdio', command: 'gitea-warden', args: ['serve'], env }];
    }),
  );
  const config = client === 'vscode' ? { servers } : { mcpServers: servers };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** The profile's path as the client expands it: under the project or the home directory by the client's variable, else absolute. */
function profileInConfig(plan: Plan, client: Client, file: string): string {
  const { project, home } = CLIENT_FILES[client];
  const inProject = within(plan.project, file);
  if (inProject !== null) return project === '.' ? inProject : `${project}/${inProject}`;
  const inHome = within(homeDir(), file);
  return inHome !== null ? `${home}/${inHome}` : file;
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
  const profiles = shown(plan.profiles);
  const shared = plan.roles.filter((planned) => planned.login === null).length > 1;
  const inProject = within(plan.project, plan.profiles) !== null;
  const lines = [
    '',
    ...(inProject
      ? [
          `note: ${profiles}/ is inside ${shown(plan.project)}: an agent working there can edit its own profile.`,
          `      Keep profiles where agents cannot write (the default, --profiles omitted, is ${shownHome(userProfilesDir())});`,
          `      a repository of profiles needs review of every change (gitea-warden diff in CI).`,
          '',
        ]
      : []),
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
    ...(plan.oauth
      ? [
          `  MCP_TRANSPORT=http AUTH_MODE=oauth GITEA_MCP_PROFILE=${profiles}/gitea-${plan.roles[0]?.role ?? 'author'}.yaml gitea-warden serve`,
          '  (with OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, TOKEN_ENCRYPTION_KEY and PUBLIC_BASE_URL: gitea-warden serve --help)',
        ]
      : [
          ...variables.map((variable) => `  export ${variable}=...`),
          `  gitea-warden doctor --profile ${profiles}/gitea-${plan.roles[0]?.role ?? 'author'}.yaml   # URL, token, scopes, login`,
          ...(plan.client
            ? [
                `  then restart ${CLIENT_NAMES[plan.client]} in ${shown(plan.project)}: it starts one namespace per role from ` +
                  `${CLIENT_FILES[plan.client].file}`,
                `  merges, branch cleanups and landed closes then ask you to confirm in a ${CLIENT_NAMES[plan.client]} dialog (elicitation);`,
                `  nothing to configure for that, and no hook should answer for you (docs/confirmations.md);`,
                `  the namespaces speak MCP 2026-07-28 and the 2025 revisions over stdio, whichever ${CLIENT_NAMES[plan.client]} opens with`,
              ]
            : [
                `  then: GITEA_MCP_PROFILE=${profiles}/gitea-${plan.roles[0]?.role ?? 'author'}.yaml gitea-warden serve`,
              ]),
        ]),
  ];
  return `${lines.join('\n')}\n`;
}

function homeDir(): string {
  return process.env.HOME || homedir();
}

/** `file` relative to `dir` when it lies inside it, else null. */
function within(dir: string, file: string): string | null {
  const path = relative(dir, file);
  return path !== '' && !path.startsWith('..') && !isAbsolute(path) ? path.split('\\').join('/') : null;
}

/** A path for a person: relative to the working directory when under it, ~/... under the home directory. */
function shown(path: string): string {
  const relativePath = relative(process.cwd(), path);
  if (relativePath === '') return '.';
  if (!relativePath.startsWith('..') && !isAbsolute(relativePath)) return relativePath;
  return shownHome(path);
}

function shownHome(path: string): string {
  const inHome = within(homeDir(), path);
  return inHome !== null ? `~/${inHome}` : path;
}
