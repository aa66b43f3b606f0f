// "Did you mean": the known names closest to a mistyped one, for error messages and hints.

/** Edit distance (insertions, deletions, substitutions) between two strings. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Up to `limit` known names within a third of the typed name's length (at least 2 edits), closest
 * first; names equal up to case come first. Empty when nothing is close: a far-off guess misleads.
 */
export function nearest(typed: string, known: Iterable<string>, limit = 3): string[] {
  const lower = typed.toLowerCase();
  const budget = Math.max(2, Math.floor(typed.length / 3));
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
