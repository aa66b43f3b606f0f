// A value that is still a variable reference of a client configuration (`${GITEA_AUTHOR_TOKEN}`,
// `${env:GITEA_URL}`, `${workspaceFolder}/...`): the MCP client did not expand it (another client's
// syntax, or the variable unset where the client started), and it reached the server as text. Such
// a value is named as what it is and never used: a reference sent to Gitea as a token would only be
// refused as a wrong password, with nothing saying why.

/** The unexpanded reference in `value` (its first one), or null. */
export function unexpandedReference(value: string): string | null {
  return /\$\{[^}]*\}/.exec(value)?.[0] ?? /^\$[A-Za-z_][A-Za-z0-9_]*$/.exec(value.trim())?.[0] ?? null;
}

/** Why a setting holding a reference is refused, and how each client spells one. */
export function unexpandedMessage(variable: string, reference: string): string {
  return (
    `${variable} holds ${reference}, a variable reference the MCP client did not expand: set the variable in the ` +
    "environment the client starts from, in the client's own syntax (Claude Code: ${NAME}; VS Code and Cursor: ${env:NAME})"
  );
}
