// Loads profile files (one profile per YAML/JSON file, or the multi-identity config shape
// environments.<env>.services.gitea.identities.<role>), checks them, and compiles them once for the
// pure core. Fails closed: a profile with any error finding does not load.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { schemaValidator, validationErrors, type LoadedDocument, type PathSegment } from '../shared/document.js';
import { PACKAGE_PREFIX, packageRoot, profilesDir, shownPath, userProfilesDir } from '../shared/paths.js';
import { loadSchema, readChecked, schemaFindings, type PolicySet } from './policy-set.js';
import { credentialFindings, profileFindings, type Finding } from '../policy/findings.js';
import type { ConfigFacts } from '../policy/diff.js';
import { confirmationFindings } from '../policy/confirmations.js';
import { buildHolderIndex, type HolderIndex } from '../policy/hints.js';
import {
  compileProfile,
  effectiveOperations,
  type CompiledProfile,
  type ProfileData,
  type ProfileSource,
} from '../policy/profile.js';

/** One profile found in a file: its data, where it sits, and the names it answers to. */
export interface FoundProfile {
  source: ProfileSource;
  /** Names that select it: profile_name, the identity key and its profile_aliases. */
  names: string[];
  /** In a multi-identity config: what the config adds around it (runtime switching, its environment's Gitea). */
  config?: ConfigFacts;
}

export interface ProfileFileReport {
  file: string;
  profiles: FoundProfile[];
  findings: Finding[];
}

/** Reads and checks every profile in one file: raw-text markers, credentials, schema, then lists, capabilities and role. */
export function checkProfileFile(file: string, policy: PolicySet): ProfileFileReport {
  const read = readChecked(file);
  if (!read.doc) return { file, profiles: [], findings: read.findings };
  const doc = read.doc;
  const credentials = credentialFindings(doc.data, file, (path) => doc.lineOf(path));
  const isConfig = typeof doc.data === 'object' && doc.data !== null && 'environments' in doc.data;
  // config.schema.json refers to profile.schema.json: compile that one first so the reference resolves.
  const profileSchema = loadSchema('profile', policy.dir);
  if (isConfig) schemaValidator(profileSchema);
  const schema = schemaFindings(doc, isConfig ? loadSchema('config', policy.dir) : profileSchema);
  const profiles = schema.length > 0 ? [] : isConfig ? configProfiles(doc) : [singleProfile(doc)];
  const lint = profiles.flatMap((found) => {
    const compiled = compileProfile(found.source, policy.vocabulary);
    return [
      ...profileFindings(compiled, policy.vocabulary, policy.invariants),
      ...confirmationFindings(compiled, policy.vocabulary),
    ];
  });
  return { file, profiles, findings: [...credentials, ...schema, ...lint] };
}

function singleProfile(doc: LoadedDocument): FoundProfile {
  const data = doc.data as ProfileData;
  return {
    source: { data, file: doc.file, lineOf: (path) => doc.lineOf(path) },
    names: data.profile_name ? [data.profile_name] : [],
  };
}

interface ConfigData {
  allow_runtime_switching?: boolean;
  environments: Record<
    string,
    {
      services: {
        gitea?: {
          base_url?: string;
          identities: Record<string, ProfileData>;
          profile_aliases?: Record<string, string>;
        };
      };
    }
  >;
}

function configProfiles(doc: LoadedDocument): FoundProfile[] {
  const found: FoundProfile[] = [];
  const data = doc.data as ConfigData;
  for (const [env, environment] of Object.entries(data.environments)) {
    const gitea = environment.services.gitea;
    if (!gitea) continue;
    const config: ConfigFacts = {
      file: doc.file,
      runtimeSwitching: data.allow_runtime_switching === true,
      runtimeSwitchingLine: doc.lineOf(['allow_runtime_switching']),
      baseUrl: gitea.base_url ?? null,
      baseUrlLine: doc.lineOf(['environments', env, 'services', 'gitea', 'base_url']),
    };
    const aliases = Object.entries(gitea.profile_aliases ?? {});
    for (const [key, data] of Object.entries(gitea.identities)) {
      const prefix: PathSegment[] = ['environments', env, 'services', 'gitea', 'identities', key];
      const names = [
        key,
        ...(data.profile_name ? [data.profile_name] : []),
        ...aliases.filter(([, target]) => target === key).map(([alias]) => alias),
      ];
      found.push({
        source: { data, file: doc.file, lineOf: (path) => doc.lineOf([...prefix, ...path]) },
        names,
        config,
      });
    }
  }
  return found;
}

/** Where a bare profile name is looked for, in this order: the profiles `init` wrote, then the project's. */
export interface ProfileSearch {
  /** The directory `init` writes to by default (userProfilesDir). */
  userDir: string;
  /** The working directory: its profiles/ is the project's. */
  cwd: string;
}

const PROFILE_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;

export function defaultProfileSearch(env: NodeJS.ProcessEnv = process.env): ProfileSearch {
  return { userDir: userProfilesDir(env), cwd: process.cwd() };
}

/**
 * The file a profile reference names. A path (a slash, a .yaml/.yml/.json extension, or an existing
 * file) is itself. `gitea-warden:NAME` is the package's reference profile NAME (`gitea-warden:PATH`, as
 * output shows the package's files, is that file). A bare NAME is the team's own file: NAME.yaml (.yml,
 * .json) in the directory `init` writes to, then in ./profiles/; never the package's copy. Missing, or
 * found twice with different contents, it is an error that says where it looked.
 */
export function profileFileFor(reference: string, search: ProfileSearch = defaultProfileSearch()): string {
  if (reference.startsWith(PACKAGE_PREFIX)) return packageProfile(reference.slice(PACKAGE_PREFIX.length));
  if (/[\\/]|\.(ya?ml|json)$/i.test(reference) || existsSync(reference)) return reference;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(reference))
    throw new ProfileError(`'${reference}' is neither a profile name nor a profile file`);
  const dirs = [search.userDir, join(search.cwd, 'profiles')];
  const found = dirs.flatMap((dir) =>
    PROFILE_EXTENSIONS.map((extension) => join(dir, `${reference}${extension}`)).filter((file) => isFile(file)),
  );
  const looked = `looked for ${reference}.yaml (.yml, .json) in ${dirs.map((dir) => shownPath(dir)).join(' and ')}`;
  const [first, ...others] = found;
  if (first === undefined) {
    const reference_ = isFile(join(profilesDir, `${reference}.yaml`))
      ? `; the package's reference profile is ${PACKAGE_PREFIX}${reference} (its sandbox users, not your team's)`
      : '';
    throw new ProfileError(`no profile named '${reference}': ${looked}${reference_}; or give the profile's path`);
  }
  const differing = others.filter((file) => !sameContent(file, first));
  if (differing.length > 0) {
    throw new ProfileError(
      `profile name '${reference}' is ambiguous: ${[first, ...differing].map((file) => shownPath(file)).join(' and ')} differ; give the path ` +
        `of the one you mean`,
    );
  }
  return first;
}

/** A file of the package's own profiles/ (reference profiles and their examples), never outside it. */
function packageProfile(name: string): string {
  const file = /[\\/]|\.(ya?ml|json)$/i.test(name) ? resolve(packageRoot, name) : join(profilesDir, `${name}.yaml`);
  const inside = relative(profilesDir, file);
  if (inside.startsWith('..') || isAbsolute(inside) || !isFile(file)) {
    const names = profileFilesIn(profilesDir).map(
      (path) => `${PACKAGE_PREFIX}${basename(path).replace(/\.yaml$/, '')}`,
    );
    throw new ProfileError(`no reference profile ${PACKAGE_PREFIX}${name}; the package has ${names.join(', ')}`);
  }
  return file;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function sameContent(a: string, b: string): boolean {
  return readFileSync(a).equals(readFileSync(b));
}

/** A profile by name, file, or `file#name` (an identity, profile_name or alias of a multi-identity config). */
export function loadProfile(reference: string, policy: PolicySet, service?: string): CompiledProfile {
  const { file, name, matching } = profilesNamed(reference, policy);
  const [only, ...rest] = matching;
  if (!only) throw new ProfileError(`${file}: no profile${name ? ` named '${name}'` : ''}`);
  if (rest.length > 0) throw new ProfileError(`${file}: ${matching.length} profiles match; name one as ${file}#<name>`);
  return compileProfile(only.source, policy.vocabulary, service);
}

/** One version of the profiles a reference names, for `diff`: each with its key and its config's facts. */
export interface ProfileVersion {
  /** What pairs it with the other version: the identity key in a config, else its profile_name. */
  key: string;
  profile: CompiledProfile;
  config: ConfigFacts | null;
}

/** Every profile a reference names (all identities of a config given without #name), compiled. */
export function loadProfileVersions(reference: string, policy: PolicySet): ProfileVersion[] {
  const { file, name, matching } = profilesNamed(reference, policy);
  if (matching.length === 0) throw new ProfileError(`${file}: no profile${name ? ` named '${name}'` : ''}`);
  return matching.map((found) => ({
    key: found.names[0] ?? file,
    profile: compileProfile(found.source, policy.vocabulary),
    config: found.config ?? null,
  }));
}

function profilesNamed(
  reference: string,
  policy: PolicySet,
): { file: string; name: string | null; matching: FoundProfile[] } {
  const hash = reference.lastIndexOf('#');
  const file = profileFileFor(hash > 0 ? reference.slice(0, hash) : reference);
  const name = hash > 0 ? reference.slice(hash + 1) : null;
  const report = checkProfileFile(file, policy);
  const error = report.findings.find((finding) => finding.severity === 'error');
  if (error)
    throw new ProfileError(`${error.file}${error.line ? `:${error.line}` : ''}: ${error.code}: ${error.message}`);
  const matching = name === null ? report.profiles : report.profiles.filter((found) => found.names.includes(name));
  return { file, name, matching };
}

export class ProfileError extends Error {
  override name = 'ProfileError';
}

/**
 * An inline profile (decide --batch): checked against the profile schema like a file, except that the
 * identity fields may be left out. A malformed scope (repositories: "acme/x") must not read as "no scope".
 */
export function compileInlineProfile(data: unknown, policy: PolicySet, service?: string): CompiledProfile {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new ProfileError('inline profile must be an object');
  const noLogin = !('authenticated_username' in data) && !('authenticated_username_from_env' in data);
  // Judged by what failed, never by how a build words it: a missing top-level field, or (no login
  // field at all) the choice between the two login fields.
  const leftOut = (e: { keyword: string; fields: string[] }) =>
    e.keyword === 'required' || (noLogin && e.keyword === 'oneOf' && e.fields.includes('authenticated_username'));
  const problems = validationErrors(loadSchema('profile', policy.dir), data).filter(
    (e) => !(e.path === '/' && leftOut(e)),
  );
  const [first] = problems;
  if (first) throw new ProfileError(`inline profile: ${first.path}: ${first.message}`);
  return compileProfile({ data: data as ProfileData, file: '<inline>' }, policy.vocabulary, service);
}

/** Profile files under a directory (or the file itself): *.yaml, *.yml, *.json. */
export function profileFilesIn(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => /\.(ya?ml|json)$/.test(name))
    .sort()
    .map((name) => join(path, name));
}

/** The reference profiles, compiled; the owner is marked as the fallback holder for hints. */
export function loadReferenceProfiles(policy: PolicySet, dir: string = profilesDir): CompiledProfile[] {
  return profileFilesIn(dir).map((file) => loadProfile(file, policy));
}

/** Holders for hints ("use the gitea-merger namespace"); hints are a convenience, so an unusable reference set only drops them. */
export function hintHolders(policy: PolicySet, dir: string = profilesDir): HolderIndex | undefined {
  try {
    return referenceHolders(policy, dir);
  } catch {
    return undefined;
  }
}

/**
 * hintHolders, read on first use: only a denial's hint needs them, so a namespace does not read and
 * compile every reference profile before its first answer.
 */
export function lazyHintHolders(policy: PolicySet, dir: string = profilesDir): HolderIndex {
  return new LazyMap(() => hintHolders(policy, dir) ?? new Map());
}

class LazyMap<K, V> implements ReadonlyMap<K, V> {
  private built: ReadonlyMap<K, V> | undefined;
  constructor(private readonly build: () => ReadonlyMap<K, V>) {}
  private get map(): ReadonlyMap<K, V> {
    this.built ??= this.build();
    return this.built;
  }
  get size(): number {
    return this.map.size;
  }
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    this.map.forEach((value, key) => callback(value, key, this));
  }
  entries(): MapIterator<[K, V]> {
    return this.map.entries();
  }
  keys(): MapIterator<K> {
    return this.map.keys();
  }
  values(): MapIterator<V> {
    return this.map.values();
  }
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.map[Symbol.iterator]();
  }
}

export function referenceHolders(policy: PolicySet, dir: string = profilesDir): HolderIndex {
  return buildHolderIndex(
    loadReferenceProfiles(policy, dir).map((profile) => ({
      name: profile.name ?? profile.file,
      operations: effectiveOperations(profile, policy.vocabulary),
      fallback: profile.role === 'owner',
    })),
  );
}
