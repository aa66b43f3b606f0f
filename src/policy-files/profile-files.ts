// Loads profile files (one profile per YAML/JSON file, or the multi-identity config shape
// environments.<env>.services.gitea.identities.<role>), checks them, and compiles them once for the
// pure core. Fails closed: a profile with any error finding does not load.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { schemaValidator, validationErrors, type LoadedDocument, type PathSegment } from '../shared/document.js';
import { profilesDir } from '../shared/paths.js';
import { loadSchema, readChecked, schemaFindings, type PolicySet } from './policy-set.js';
import { credentialFindings, profileFindings, type Finding } from '../policy/findings.js';
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
  const lint = profiles.flatMap((found) =>
    profileFindings(compileProfile(found.source, policy.vocabulary), policy.vocabulary, policy.invariants),
  );
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
  environments: Record<
    string,
    { services: { gitea?: { identities: Record<string, ProfileData>; profile_aliases?: Record<string, string> } } }
  >;
}

function configProfiles(doc: LoadedDocument): FoundProfile[] {
  const found: FoundProfile[] = [];
  for (const [env, environment] of Object.entries((doc.data as ConfigData).environments)) {
    const gitea = environment.services.gitea;
    if (!gitea) continue;
    const aliases = Object.entries(gitea.profile_aliases ?? {});
    for (const [key, data] of Object.entries(gitea.identities)) {
      const prefix: PathSegment[] = ['environments', env, 'services', 'gitea', 'identities', key];
      const names = [
        key,
        ...(data.profile_name ? [data.profile_name] : []),
        ...aliases.filter(([, target]) => target === key).map(([alias]) => alias),
      ];
      found.push({ source: { data, file: doc.file, lineOf: (path) => doc.lineOf([...prefix, ...path]) }, names });
    }
  }
  return found;
}

/** `file` or `file#name` (a profile in a multi-identity config, by identity key, profile_name or alias). */
/** A bare profile name (`gitea-reviewer`) means profiles/<name>.yaml; anything with a slash or an extension is a path. */
export function profileFileFor(reference: string, dir: string = profilesDir): string {
  if (/[\\/]|\.(ya?ml|json)$/i.test(reference) || existsSync(reference)) return reference;
  return join(dir, `${reference}.yaml`);
}

/** A profile by name, file, or `file#name` (an identity, profile_name or alias of a multi-identity config). */
export function loadProfile(reference: string, policy: PolicySet, service?: string): CompiledProfile {
  const hash = reference.lastIndexOf('#');
  const file = profileFileFor(hash > 0 ? reference.slice(0, hash) : reference);
  const name = hash > 0 ? reference.slice(hash + 1) : null;
  const report = checkProfileFile(file, policy);
  const error = report.findings.find((finding) => finding.severity === 'error');
  if (error)
    throw new ProfileError(`${error.file}${error.line ? `:${error.line}` : ''}: ${error.code}: ${error.message}`);
  const matching = name === null ? report.profiles : report.profiles.filter((found) => found.names.includes(name));
  const [only, ...rest] = matching;
  if (!only) throw new ProfileError(`${file}: no profile${name ? ` named '${name}'` : ''}`);
  if (rest.length > 0) throw new ProfileError(`${file}: ${matching.length} profiles match; name one as ${file}#<name>`);
  return compileProfile(only.source, policy.vocabulary, service);
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
