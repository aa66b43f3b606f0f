// Whether a glob pattern matches nothing that a list of others does not: what `diff` needs to call a
// scope change a gain or a loss by what the patterns match, not by how they are written
// (repositories [acme/*] -> [acme/widgets] narrows; [acme/widgets] -> [acme/*] widens).
//
// The meaning of a pattern is micromatch's own: its regular expression (micromatch.makeRe with the
// options scope-patterns.ts matches with) is read into an automaton, and the question becomes one of
// automata: is there a value the pattern matches and none of the others does? Only values a scope is
// ever matched against count (valueProblem: non-empty segments joined by single slashes, no `.` or
// `..` segment; a repository is owner/repo). On those values micromatch's lookaheads (which keep `*`
// off `.` and `..` segments, and off the empty string) always hold, so they are read as true. A
// regular expression with anything else this reader does not know makes the pattern unknown: it
// covers nothing and is covered only by its own text, so an unclear change counts as a gain.
import micromatch from 'micromatch';
import type { ScopeKind } from './scope-patterns.js';

type Test = (c: string) => boolean;
type Edge =
  | { kind: 'char'; test: Test; to: number }
  | { kind: 'epsilon'; to: number }
  /** `^`: only before the first character. */
  | { kind: 'start'; to: number }
  /** `$`: only after the last character. */
  | { kind: 'end'; to: number };

interface Nfa {
  edges: Edge[][];
  start: number;
  accept: number;
}

/** Stands for every character the patterns do not name (a private-use code point). */
const OTHER = '\uE000';
const ASCII = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

/** The lookaheads micromatch writes that always hold on the values of a scope (see the header). */
const TRIVIAL_LOOKAHEADS = new Set(['?!\\.{1,2}(?:\\/|$)', '?!(?:^|\\/)\\.{1,2}(?:\\/|$)', '?=.']);

/** Every value of `kind` that `pattern` matches is matched by one of `cover`. */
export function covers(cover: readonly string[], pattern: string, kind: ScopeKind, nocase: boolean): boolean {
  const fold = (text: string) => (nocase ? text.toLowerCase() : text);
  if (cover.some((other) => fold(other) === fold(pattern))) return true;
  const specific = globAutomaton(pattern, nocase);
  if (specific === null) return false;
  const general = cover.map((other) => globAutomaton(other, nocase)).filter((nfa): nfa is Nfa => nfa !== null);
  if (general.length === 0) return false;
  return !counterexample([domainOf(kind), specific, ...general], alphabetOf([pattern, ...cover], nocase));
}

/** The patterns of `patterns` that `cover` does not cover, in order. */
export function uncovered(
  cover: readonly string[],
  patterns: readonly string[],
  kind: ScopeKind,
  nocase: boolean,
): string[] {
  return patterns.filter((pattern) => !covers(cover, pattern, kind, nocase));
}

/** The automaton of micromatch's regular expression for the pattern, or null when it cannot be read. */
export function globAutomaton(pattern: string, nocase: boolean): Nfa | null {
  let source: string;
  try {
    source = micromatch.makeRe(pattern, { dot: true, nocase }).source;
  } catch {
    return null;
  }
  try {
    return new RegexReader(source, nocase).read();
  } catch {
    return null;
  }
}

/**
 * Is there a string the domain (machines[0]) and the pattern (machines[1]) accept and none of the
 * cover (the rest) does? A breadth-first walk of the product of their subset constructions.
 */
function counterexample(machines: Nfa[], alphabet: string[]): boolean {
  const startSets = machines.map((nfa) => closure(nfa, [config(nfa.start, true, false)]));
  const key = (sets: number[][]) => sets.map((set) => set.join(',')).join('|');
  const seen = new Set([key(startSets)]);
  const queue = [startSets];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const sets = next;
    const accepts = sets.map((set, i) => set.some((c) => stateOf(c) === (machines[i] as Nfa).accept));
    if (accepts[0] && accepts[1] && !accepts.slice(2).some(Boolean)) return true;
    for (const c of alphabet) {
      const stepped = machines.map((nfa, i) => closure(nfa, step(nfa, sets[i] as number[], c)));
      // Once the domain or the pattern cannot go on, no longer string is a counterexample.
      if ((stepped[0] as number[]).length === 0 || (stepped[1] as number[]).length === 0) continue;
      const k = key(stepped);
      if (!seen.has(k)) {
        seen.add(k);
        queue.push(stepped);
      }
    }
  }
  return false;
}

/** A configuration: a state, whether no character was read yet, and whether `$` was passed. */
function config(state: number, atStart: boolean, ended: boolean): number {
  return state * 4 + (atStart ? 1 : 0) + (ended ? 2 : 0);
}
const stateOf = (c: number) => Math.floor(c / 4);

function step(nfa: Nfa, set: number[], c: string): number[] {
  const to = new Set<number>();
  for (const configuration of set) {
    if (configuration & 2) continue;
    for (const edge of nfa.edges[stateOf(configuration)] ?? [])
      if (edge.kind === 'char' && edge.test(c)) to.add(config(edge.to, false, false));
  }
  return [...to];
}

function closure(nfa: Nfa, set: number[]): number[] {
  const seen = new Set(set);
  const stack = [...set];
  for (let configuration = stack.pop(); configuration !== undefined; configuration = stack.pop()) {
    const atStart = (configuration & 1) === 1;
    const ended = (configuration & 2) === 2;
    for (const edge of nfa.edges[stateOf(configuration)] ?? []) {
      const next =
        edge.kind === 'epsilon'
          ? config(edge.to, atStart, ended)
          : edge.kind === 'start' && atStart
            ? config(edge.to, atStart, ended)
            : edge.kind === 'end'
              ? config(edge.to, atStart, true)
              : null;
      if (next !== null && !seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return [...seen].sort((a, b) => a - b);
}

/** Printable ASCII, every other character the patterns name, and one character none names. */
function alphabetOf(patterns: readonly string[], nocase: boolean): string[] {
  const named = patterns.flatMap((pattern) => [...pattern]).filter((c) => c < ' ' || c > '~');
  const all = [...new Set([...ASCII, ...named, OTHER])];
  // Case-insensitive: an upper case letter is its lower case one.
  return nocase ? all.filter((c) => c === c.toLowerCase()) : all;
}

class Builder {
  readonly edges: Edge[][] = [];
  state(): number {
    this.edges.push([]);
    return this.edges.length - 1;
  }
  add(from: number, edge: Edge): void {
    this.edges[from]?.push(edge);
  }
}

/** The values a scope of this kind is matched against: segments of one or more characters, joined by `/`. */
function domainOf(kind: ScopeKind): Nfa {
  const b = new Builder();
  const [start, segment, slash] = [b.state(), b.state(), b.state()];
  const notSlash: Test = (c) => c !== '/';
  b.add(start, { kind: 'char', test: notSlash, to: segment });
  b.add(segment, { kind: 'char', test: notSlash, to: segment });
  b.add(segment, { kind: 'char', test: (c) => c === '/', to: slash });
  if (kind !== 'repository') {
    b.add(slash, { kind: 'char', test: notSlash, to: segment });
    return { edges: b.edges, start, accept: segment };
  }
  // owner/repo: exactly two segments.
  const repo = b.state();
  b.add(slash, { kind: 'char', test: notSlash, to: repo });
  b.add(repo, { kind: 'char', test: notSlash, to: repo });
  return { edges: b.edges, start, accept: repo };
}

interface Fragment {
  start: number;
  end: number;
}

/** A reader of the regular expressions micromatch writes (Thompson's construction); throws on anything else. */
class RegexReader {
  private at = 0;
  private readonly b = new Builder();

  constructor(
    private readonly source: string,
    private readonly nocase: boolean,
  ) {}

  read(): Nfa {
    const whole = this.alternation();
    if (this.at !== this.source.length) throw new Error('unread input');
    return { edges: this.b.edges, start: whole.start, accept: whole.end };
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private alternation(): Fragment {
    const branches = [this.concatenation()];
    while (this.peek() === '|') {
      this.at += 1;
      branches.push(this.concatenation());
    }
    if (branches.length === 1) return branches[0] as Fragment;
    const start = this.b.state();
    const end = this.b.state();
    for (const branch of branches) {
      this.b.add(start, { kind: 'epsilon', to: branch.start });
      this.b.add(branch.end, { kind: 'epsilon', to: end });
    }
    return { start, end };
  }

  private concatenation(): Fragment {
    const start = this.b.state();
    let end = start;
    while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const piece = this.quantified();
      this.b.add(end, { kind: 'epsilon', to: piece.start });
      end = piece.end;
    }
    return { start, end };
  }

  private quantified(): Fragment {
    const atomStart = this.at;
    let fragment = this.atom();
    const atomEnd = this.at;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*' || c === '+' || c === '?') {
        this.at += 1;
        [min, max] = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1];
      } else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.source.slice(this.at))) {
        const [, low, comma, high] = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at)) as RegExpExecArray;
        this.at += (/^\{\d+(,\d*)?\}/.exec(this.source.slice(this.at)) as RegExpExecArray)[0].length;
        min = Number(low);
        max = comma === undefined ? min : high ? Number(high) : Infinity;
        if (min > 16 || (max !== Infinity && max > 16)) throw new Error('repetition too large');
      } else return fragment;
      if (this.peek() === '?') this.at += 1; // lazy or greedy: the same strings
      fragment = this.repeat(fragment, min, max, () => this.reread(atomStart, atomEnd));
    }
  }

  /** A fresh copy of the atom between two offsets, for repetitions that need several. */
  private reread(from: number, to: number): Fragment {
    const saved = this.at;
    this.at = from;
    const fragment = this.atom();
    if (this.at !== to) throw new Error('atom reread differently');
    this.at = saved;
    return fragment;
  }

  private repeat(first: Fragment, min: number, max: number, copy: () => Fragment): Fragment {
    const start = this.b.state();
    const end = this.b.state();
    let at = start;
    const copies = [first];
    const next = () => copies.shift() ?? copy();
    for (let i = 0; i < min; i += 1) {
      const piece = next();
      this.b.add(at, { kind: 'epsilon', to: piece.start });
      at = piece.end;
    }
    if (max === Infinity) {
      const piece = next();
      this.b.add(at, { kind: 'epsilon', to: piece.start });
      this.b.add(piece.end, { kind: 'epsilon', to: at });
      this.b.add(at, { kind: 'epsilon', to: end });
      return { start, end };
    }
    for (let i = min; i < max; i += 1) {
      this.b.add(at, { kind: 'epsilon', to: end });
      const piece = next();
      this.b.add(at, { kind: 'epsilon', to: piece.start });
      at = piece.end;
    }
    this.b.add(at, { kind: 'epsilon', to: end });
    return { start, end };
  }

  private atom(): Fragment {
    const c = this.peek();
    if (c === undefined) throw new Error('unexpected end');
    if (c === '(') return this.group();
    if (c === '^' || c === '$') {
      this.at += 1;
      const start = this.b.state();
      const end = this.b.state();
      this.b.add(start, { kind: c === '^' ? 'start' : 'end', to: end });
      return { start, end };
    }
    if (c === '[') return this.char(this.characterClass());
    if (c === '.') {
      this.at += 1;
      return this.char((x) => x !== '\n' && x !== '\r' && x !== '\u2028' && x !== '\u2029');
    }
    if (c === '\\') return this.char(this.escape());
    if ('*+?{}|)'.includes(c)) throw new Error(`unexpected ${c}`);
    this.at += 1;
    return this.char(this.literal(c));
  }

  private group(): Fragment {
    this.at += 1; // (
    if (this.source.startsWith('?:', this.at)) this.at += 2;
    else if (this.source.startsWith('?=', this.at) || this.source.startsWith('?!', this.at)) {
      // A lookahead: only the ones that always hold on a scope's values are read (as nothing).
      const close = this.matchingParen(this.at - 1);
      if (!TRIVIAL_LOOKAHEADS.has(this.source.slice(this.at, close))) throw new Error('lookahead');
      this.at = close + 1;
      const state = this.b.state();
      return { start: state, end: state };
    } else if (this.peek() === '?') throw new Error('group kind');
    const inner = this.alternation();
    if (this.peek() !== ')') throw new Error('unclosed group');
    this.at += 1;
    return inner;
  }

  private matchingParen(open: number): number {
    let depth = 0;
    for (let i = open; i < this.source.length; i += 1) {
      const c = this.source[i];
      if (c === '\\') i += 1;
      else if (c === '[') {
        i += 1;
        while (i < this.source.length && this.source[i] !== ']') i += this.source[i] === '\\' ? 2 : 1;
      } else if (c === '(') depth += 1;
      else if (c === ')' && (depth -= 1) === 0) return i;
    }
    throw new Error('unbalanced');
  }

  private char(test: Test): Fragment {
    const start = this.b.state();
    const end = this.b.state();
    this.b.add(start, { kind: 'char', test: this.folded(test), to: end });
    return { start, end };
  }

  /** Case-insensitive (the `i` flag): a character matches when any of its cases does. */
  private folded(test: Test): Test {
    return this.nocase ? (x) => test(x) || test(x.toUpperCase()) || test(x.toLowerCase()) : test;
  }

  private literal(c: string): Test {
    return (x) => x === c;
  }

  /** After a backslash: a character class escape or the character itself. */
  private escape(): Test {
    this.at += 1;
    const c = this.peek();
    if (c === undefined) throw new Error('dangling escape');
    this.at += 1;
    const classes: Record<string, Test> = {
      d: (x) => /\d/.test(x),
      D: (x) => !/\d/.test(x),
      w: (x) => /\w/.test(x),
      W: (x) => !/\w/.test(x),
      s: (x) => /\s/.test(x),
      S: (x) => !/\s/.test(x),
    };
    if (c in classes) return classes[c] as Test;
    if (/[A-Za-z0-9]/.test(c)) throw new Error(`escape \\${c}`);
    return this.literal(c);
  }

  private characterClass(): Test {
    this.at += 1; // [
    const negated = this.peek() === '^';
    if (negated) this.at += 1;
    const members: Test[] = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      first = false;
      const c = this.peek();
      if (c === undefined) throw new Error('unclosed class');
      if (c === '[') throw new Error('nested class');
      const low = c === '\\' ? this.escape() : ((this.at += 1), this.literal(c));
      if (this.peek() === '-' && this.source[this.at + 1] !== ']' && c !== '\\') {
        this.at += 1;
        const high = this.peek();
        if (high === undefined || high === '\\') throw new Error('range end');
        this.at += 1;
        const [from, to] = [c.codePointAt(0) as number, high.codePointAt(0) as number];
        members.push((x) => (x.codePointAt(0) as number) >= from && (x.codePointAt(0) as number) <= to);
      } else members.push(low);
    }
    this.at += 1; // ]
    // Under the `i` flag a negated class excludes every case of its members: fold before negating.
    const member = this.folded((x) => members.some((test) => test(x)));
    return negated ? (x) => !member(x) : member;
  }
}
