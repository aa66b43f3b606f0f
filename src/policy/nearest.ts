// "Did you mean": the known names closest to a mistyped one, for error messages and hints.

/** Edit distance (insertions, deletions, substitutions, and swapping two neighbours: chekc) between two strings. */
function distance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (beforePrevious[j - 2] ?? 0) + 1);
      current[j] = best;
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Up to `limit` known names within a typo's reach (one edit per four characters, at most three),
 * closest first. Empty when nothing is that close: a far-off guess (gitea_pulls_create for
 * gitea_pulls_create_review) would send an agent to a different operation.
 */
export function nearest(typed: string, known: Iterable<string>, limit = 3): string[] {
  const lower = typed.toLowerCase();
  const budget = Math.min(3, Math.max(1, Math.floor(typed.length / 4)));
  return [...new Set(known)]
    .map((name) => ({ name, cost: distance(lower, name.toLowerCase()) }))
    .filter(({ cost }) => cost <= budget)
    .sort((x, y) => x.cost - y.cost || x.name.localeCompare(y.name))
    .slice(0, limit)
    .map(({ name }) => name);
}

/** " (did you mean x or y?)", or nothing when no known name is close. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const close = nearest(typed, known);
  if (close.length === 0) return '';
  const list = close.length === 1 ? close[0] : `${close.slice(0, -1).join(', ')} or ${close.at(-1)}`;
  return ` (did you mean ${list}?)`;
}
