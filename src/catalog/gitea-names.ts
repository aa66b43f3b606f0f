// The JSON Schemas of Gitea's names, shared by the generated tools and the built-in ones: the
// characters Gitea allows in logins and repository names, never `.` or `..` (a path segment).
import type { JsonSchema } from './types.js';

const NAME_PATTERN = '^(?!\\.\\.?$)[A-Za-z0-9_.-]+$';

export const LOGIN_SCHEMA: JsonSchema = { type: 'string', pattern: NAME_PATTERN, maxLength: 40 };
export const REPO_NAME_SCHEMA: JsonSchema = { type: 'string', pattern: NAME_PATTERN, maxLength: 100 };
