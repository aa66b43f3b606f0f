// `gitea-warden audit init-db postgres://OWNER@HOST/DB --namespace NAME ...`: sets up the PostgreSQL
// audit sink, as the database's owner, idempotently: the audit and rate tables, row-level security
// on the audit table, and one login role per namespace that may read and add rows of its own chain
// only (never change or delete one). Each step says what it did; a role it creates gets a generated
// password, printed once in the AUDIT_SINK URL for that namespace. `--print-sql` prints the same
// setup as SQL for applying by hand (docs/audit.md, appendix) and connects to nothing.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { AUDIT_TABLE } from '../audit/postgres-log.js';
import { describeDatabase } from '../audit/database-url.js';
import { RATE_TABLE } from '../transports/rate-limit-postgres.js';

const NAMESPACE = /^[A-Za-z0-9_.-]{1,48}$/;

/** The role of a namespace: `gitea_warden_` and the chain's name, lower case, other characters as `_`. */
export function roleOf(namespace: string): string {
  return `gitea_warden_${namespace.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
}

const policyName = (namespace: string, what: 'read' | 'add') => `${roleOf(namespace)}_${what}`;

/** The statements that make the tables and their row-level security; each is idempotent. */
function tableStatements(): string[] {
  const audit = pg.escapeIdentifier(AUDIT_TABLE);
  return [
    `CREATE TABLE IF NOT EXISTS ${audit} (\n  chain text NOT NULL,\n  seq bigint NOT NULL,\n  line text NOT NULL,\n  PRIMARY KEY (chain, seq)\n)`,
    `CREATE TABLE IF NOT EXISTS ${pg.escapeIdentifier(RATE_TABLE)} (\n  key text PRIMARY KEY,\n` +
      '  tokens double precision NOT NULL,\n  updated_ms bigint NOT NULL\n)',
    `REVOKE ALL ON ${audit}, ${pg.escapeIdentifier(RATE_TABLE)} FROM PUBLIC`,
    // Each namespace role then sees and adds only the rows its policies allow: its own chain.
    `ALTER TABLE ${audit} ENABLE ROW LEVEL SECURITY`,
  ];
}

/** Grants and policies of one namespace's role (the role itself is created apart, with its password). */
function namespaceStatements(namespace: string): string[] {
  const role = pg.escapeIdentifier(roleOf(namespace));
  const audit = pg.escapeIdentifier(AUDIT_TABLE);
  const chain = pg.escapeLiteral(namespace);
  return [
    `GRANT SELECT, INSERT ON ${audit} TO ${role}`,
    `GRANT SELECT, INSERT, UPDATE ON ${pg.escapeIdentifier(RATE_TABLE)} TO ${role}`,
    `CREATE POLICY ${pg.escapeIdentifier(policyName(namespace, 'read'))} ON ${audit} FOR SELECT TO ${role} USING (chain = ${chain})`,
    `CREATE POLICY ${pg.escapeIdentifier(policyName(namespace, 'add'))} ON ${audit} FOR INSERT TO ${role} WITH CHECK (chain = ${chain})`,
  ];
}

/** The whole setup as SQL, for applying by hand: what init-db runs, with a placeholder password. */
export function setupSql(namespaces: readonly string[]): string {
  const parts = tableStatements().map((sql) => `${sql};`);
  for (const namespace of namespaces) {
    parts.push(`-- namespace ${namespace}: its chain only`);
    parts.push(`CREATE ROLE ${pg.escapeIdentifier(roleOf(namespace))} LOGIN PASSWORD 'change-me';`);
    parts.push(...namespaceStatements(namespace).map((sql) => `${sql};`));
  }
  return `${parts.join('\n')}\n`;
}

export async function initDatabase(url: string, namespaces: string[], printSql: boolean): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`gitea-warden audit init-db: ${message}\n`);
    return 2;
  };
  const bad = namespaces.find((n) => !NAMESPACE.test(n));
  if (bad !== undefined) return fail(`namespace '${bad}' is not a profile name (letters, digits, _ . -; 48 at most)`);
  if (printSql) {
    process.stdout.write(setupSql(namespaces));
    return 0;
  }
  if (!/^postgres(ql)?:\/\//.test(url)) return fail(`${url} is not a postgres:// URL`);
  const where = describeDatabase(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    return fail(`cannot connect to ${where} (${(error as { code?: string }).code ?? 'error'})`);
  }
  try {
    const refusal = await ownerRefusal(client);
    if (refusal !== null) return fail(`${where}: ${refusal}`);
    const done = await setUp(client, url, namespaces);
    process.stdout.write(`${where}:\n${done.map((line) => `  ${line}\n`).join('')}`);
    if (namespaces.length === 0)
      process.stdout.write('  no --namespace given: no role was made, so no server can write yet\n');
    return 0;
  } catch (error) {
    return fail(
      `${where}: ${(error as Error).message} (${(error as { code?: string }).code ?? 'error'}); nothing changed`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why the connected role may not set up the sink (it must own the database and the table), or null. */
async function ownerRefusal(client: pg.Client): Promise<string | null> {
  const me = await client.query<{ me: string; db_owner: string; table_owner: string | null; createrole: boolean }>(
    `SELECT current_user AS me,
            pg_get_userbyid(d.datdba) AS db_owner,
            (SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1) AS table_owner,
            (SELECT rolcreaterole OR rolsuper FROM pg_roles WHERE rolname = current_user) AS createrole
       FROM pg_database d WHERE d.datname = current_database()`,
    [AUDIT_TABLE],
  );
  const row = me.rows[0];
  if (!row) return 'cannot read who owns the database';
  if (row.me !== row.db_owner)
    return `connected as ${row.me}, but the database belongs to ${row.db_owner}: run init-db as its owner`;
  if (row.table_owner !== null && row.table_owner !== row.me)
    return `the table ${AUDIT_TABLE} belongs to ${row.table_owner}, not to ${row.me}: run init-db as its owner`;
  if (!row.createrole)
    return `${row.me} may not create roles (CREATEROLE): grant it, or run init-db as a role that may`;
  return null;
}

/** Runs the setup in one transaction; the lines say what each step did. */
async function setUp(client: pg.Client, url: string, namespaces: string[]): Promise<string[]> {
  const done: string[] = [];
  await client.query('BEGIN');
  try {
    for (const table of [AUDIT_TABLE, RATE_TABLE]) {
      const found = await client.query(
        'SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1',
        [table],
      );
      done.push(found.rowCount ? `table ${table}: exists, kept` : `table ${table}: created`);
    }
    for (const sql of tableStatements()) await client.query(sql);
    done.push(`row-level security on ${AUDIT_TABLE}: on; PUBLIC has no access`);
    for (const namespace of namespaces) done.push(...(await setUpNamespace(client, url, namespace)));
    done.push(...(await strayRoles(client, namespaces)));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return done;
}

async function setUpNamespace(client: pg.Client, url: string, namespace: string): Promise<string[]> {
  const role = roleOf(namespace);
  const done: string[] = [];
  const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists.rowCount) {
    done.push(`role ${role} (namespace ${namespace}): exists, kept (its password unchanged)`);
  } else {
    const password = randomBytes(18).toString('base64url');
    await client.query(`CREATE ROLE ${pg.escapeIdentifier(role)} LOGIN PASSWORD ${pg.escapeLiteral(password)}`);
    done.push(`role ${role} (namespace ${namespace}): created; AUDIT_SINK=${urlFor(url, role, password)}`);
  }
  const policies = await client.query<{ policyname: string }>(
    'SELECT policyname FROM pg_policies WHERE schemaname = current_schema() AND tablename = $1',
    [AUDIT_TABLE],
  );
  const have = new Set(policies.rows.map((r) => r.policyname));
  for (const sql of namespaceStatements(namespace)) {
    const policy = /^CREATE POLICY "([^"]+)"/.exec(sql)?.[1];
    if (policy !== undefined && have.has(policy)) continue;
    await client.query(sql);
  }
  done.push(
    `role ${role}: may read and add rows of chain '${namespace}' only, never change or delete one; may use ${RATE_TABLE}`,
  );
  return done;
}

/** Roles that hold rights on the audit table but no policy of a namespace: with row-level security they add nothing. */
async function strayRoles(client: pg.Client, namespaces: string[]): Promise<string[]> {
  const ours = new Set(namespaces.map(roleOf));
  const granted = await client.query<{ grantee: string }>(
    `SELECT DISTINCT grantee FROM information_schema.role_table_grants
      WHERE table_name = $1 AND privilege_type = 'INSERT' AND grantee <> current_user`,
    [AUDIT_TABLE],
  );
  const withPolicy = await client.query<{ role: string }>(
    'SELECT DISTINCT unnest(roles)::text AS role FROM pg_policies WHERE tablename = $1',
    [AUDIT_TABLE],
  );
  const covered = new Set(withPolicy.rows.map((r) => r.role));
  return granted.rows
    .filter((r) => !ours.has(r.grantee) && !covered.has(r.grantee))
    .map(
      (r) =>
        `note: role ${r.grantee} may INSERT into ${AUDIT_TABLE} but no namespace policy names it, so it adds no rows: ` +
        'give each namespace its own role (--namespace) and point its AUDIT_SINK there',
    );
}

function urlFor(url: string, role: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(role);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}
