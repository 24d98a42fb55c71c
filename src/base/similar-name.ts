/**
 * The one candidate a mistyped `name` most likely meant: within two edits (one for short names) and closer
 * than every other. None when nothing is that close, or two are equally close: a guess must be unambiguous.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = name.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  let tied = false;
  for (const candidate of new Set(candidates)) {
    if (candidate === name) continue;
    const distance = editDistance(name, candidate);
    if (distance > limit) continue;
    if (best && distance === best.distance) tied = true;
    else if (!best || distance < best.distance) [best, tied] = [{ name: candidate, distance }, false];
  }
  return tied ? undefined : best?.name;
}

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j]! + 1,
        row[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = row;
  }
  return previous[b.length]!;
}
