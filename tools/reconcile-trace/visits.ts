/** What a sequence of files control reached says: how many files, how often it came back to one it had left. */
export interface Visits {
  /** Distinct files. */
  files: number;
  /** Times control entered a file it had been in before (and left). */
  returns: number;
  /** Per file that was entered again, how many times, most first. */
  reentries: [file: string, times: number][];
  /** The files in order, each stay in a file once. */
  sequence: string[];
}

export function visitsOf(trace: readonly string[]): Visits {
  const sequence = trace.filter((file, i) => i === 0 || trace[i - 1] !== file);
  const entries = new Map<string, number>();
  for (const file of sequence) entries.set(file, (entries.get(file) ?? 0) + 1);
  const reentries = [...entries]
    .map(([file, times]): [string, number] => [file, times - 1])
    .filter(([, times]) => times > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return {
    files: entries.size,
    returns: sequence.length - entries.size,
    reentries,
    sequence,
  };
}
