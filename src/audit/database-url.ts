// A PostgreSQL URL holds a password: messages and logs name the database without it, and the
// password joins the secrets redacted from everything the server returns or writes.

/** The URL without user and password, e.g. postgres://db.internal:5432/warden. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres://${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** The URL's password, decoded; undefined when it has none. */
export function databasePassword(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

export function isDatabaseUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//.test(value);
}
