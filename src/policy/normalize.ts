// Service-aware normalization of one operation name as written (in a profile list or a request).
// Strict: only the alias table translates, and only for gitea; everything else that is not a known
// canonical name fails closed with its own reason.
import { expandPattern, looksLikePattern, type Vocabulary } from './vocabulary.js';
import { nearest } from './nearest.js';

export type NormalizeFailure =
  'unknown_operation' | 'ambiguous_operation' | 'cross_service_operation' | 'invalid_pattern';

export type Normalized =
  | { ok: true; canonical: string[]; via: 'canonical' | 'alias' | 'pattern' | 'namespaced' }
  | { ok: false; reason: NormalizeFailure; message: string; suggestion?: string };

export interface NormalizeOptions {
  /** The service being checked; `gitea` unless stated. */
  service?: string;
  /** Profile lists may hold patterns; requests may not. */
  allowPatterns?: boolean;
}

const NAME = /^[a-z0-9_*-]+(?:\.[a-z0-9_*-]+)*$/;

export function normalizeName(name: string, vocabulary: Vocabulary, options: NormalizeOptions = {}): Normalized {
  const service = options.service ?? vocabulary.service;
  if (!NAME.test(name)) return unknown(name, 'is not an operation name (lower-case words joined by dots)', vocabulary);
  if (looksLikePattern(name)) return normalizePattern(name, service, vocabulary, options.allowPatterns === true);
  const prefix = name.includes('.') ? name.slice(0, name.indexOf('.')) : null;
  if (prefix === service) {
    if (service !== vocabulary.service || vocabulary.operations.has(name))
      return { ok: true, canonical: [name], via: 'canonical' };
    return unknown(name, `is not in the ${service} vocabulary`, vocabulary);
  }
  if (service === vocabulary.service) {
    const alias = vocabulary.aliases.get(name);
    if (alias !== undefined) return { ok: true, canonical: [alias], via: 'alias' };
  }
  if (prefix !== null && isOtherService(prefix, service, vocabulary)) {
    return {
      ok: false,
      reason: 'cross_service_operation',
      message: `'${name}' belongs to service ${prefix}, not ${service}`,
    };
  }
  if (prefix !== null) {
    const qualified = `${service}.${name}`;
    const known = service !== vocabulary.service || vocabulary.operations.has(qualified);
    return {
      ok: false,
      reason: 'ambiguous_operation',
      message: `'${name}' is neither ${service}-qualified nor a known alias`,
      ...(known ? { suggestion: qualified } : {}),
    };
  }
  if (service !== vocabulary.service) return { ok: true, canonical: [`${service}.${name}`], via: 'namespaced' };
  return unknown(name, 'is neither a canonical name nor a known alias', vocabulary);
}

function normalizePattern(name: string, service: string, vocabulary: Vocabulary, allowed: boolean): Normalized {
  const expanded = allowed && service === vocabulary.service ? expandPattern(name, vocabulary) : null;
  if (expanded && expanded.length > 0) return { ok: true, canonical: expanded, via: 'pattern' };
  return {
    ok: false,
    reason: 'invalid_pattern',
    message: allowed
      ? `'${name}' is not a supported pattern (only gitea.* and gitea.<area>.* over known areas)`
      : `'${name}' is a pattern; a request names one operation`,
  };
}

/**
 * Whether a dotted name's first word names another service rather than an area. Checking gitea, a
 * first word that is one of the vocabulary's areas (pr, issue, ...) is an unqualified gitea name
 * (ambiguous); any other first word is another service. Checking another service, gitea is the
 * other service we know.
 */
function isOtherService(prefix: string, service: string, vocabulary: Vocabulary): boolean {
  if (service !== vocabulary.service) return prefix === vocabulary.service;
  return !areasOf(vocabulary).has(prefix);
}

const areaCache = new WeakMap<Vocabulary, ReadonlySet<string>>();

function areasOf(vocabulary: Vocabulary): ReadonlySet<string> {
  let areas = areaCache.get(vocabulary);
  if (!areas) {
    areas = new Set(
      [...vocabulary.operations.keys()]
        .map((name) => name.split('.'))
        .filter((parts) => parts.length === 3)
        .map((parts) => parts[1] as string),
    );
    areaCache.set(vocabulary, areas);
  }
  return areas;
}

/** An unknown name, with the closest canonical name or alias when one is near (a typo, not a guess). */
function unknown(name: string, why: string, vocabulary: Vocabulary): Normalized {
  const [closest] = nearest(name, [...vocabulary.operations.keys(), ...vocabulary.aliases.keys()], 1);
  const alias = closest === undefined ? undefined : vocabulary.aliases.get(closest);
  const suggestion = alias ?? closest;
  return {
    ok: false,
    reason: 'unknown_operation',
    message: `'${name}' ${why}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
    ...(suggestion ? { suggestion } : {}),
  };
}
