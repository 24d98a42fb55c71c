/**
 * One point control reached: the file, and whether it got there by entering one of the file's functions (a
 * call, on the way down) rather than by coming back to it (a return, an await or a yield resuming there).
 */
export interface Step {
  file: string;
  entered: boolean;
  /** The function entered, when `entered`. */
  fn?: string;
}

/** What a sequence of files control reached says: how many files, how often it came back to one it had left. */
export interface Visits {
  /** Distinct files. */
  files: number;
  /** Times control entered a file it had been in before (and left), by a call or a return. */
  returns: number;
  /** Per file that was entered again, how many times, most first. */
  reentries: [file: string, times: number][];
  /**
   * Per file, its visits on the way down: the stays that began with a call into it from another file (the
   * first file's first stay counts too); coming back up to a caller is not one. Most first.
   */
  descents: [file: string, visits: number][];
  /** The files in order, each stay in a file once. */
  sequence: string[];
  /** Which stays, in the same order, began on the way down. */
  descended: boolean[];
  /** The function each stay began in, when it began on the way down. */
  entered: (string | undefined)[];
}

export function visitsOf(trace: readonly (Step | string)[]): Visits {
  const steps = trace.map((step) => (typeof step === 'string' ? { file: step, entered: false } : step));
  // A stay: consecutive steps in one file; it was a descent when its first step entered a function there.
  const stays = steps.filter((step, i) => i === 0 || steps[i - 1]!.file !== step.file);
  const sequence = stays.map((stay) => stay.file);
  const entries = new Map<string, number>();
  for (const file of sequence) entries.set(file, (entries.get(file) ?? 0) + 1);
  const reentries = [...entries]
    .map(([file, times]): [string, number] => [file, times - 1])
    .filter(([, times]) => times > 0)
    .sort(mostFirst);
  const down = new Map<string, number>();
  stays.forEach((stay, i) => {
    if (i === 0 || stay.entered) down.set(stay.file, (down.get(stay.file) ?? 0) + 1);
  });
  return {
    files: entries.size,
    returns: sequence.length - entries.size,
    reentries,
    descents: [...down].sort(mostFirst),
    sequence,
    descended: stays.map((stay, i) => i === 0 || stay.entered),
    entered: stays.map((stay) => (stay.entered ? stay.fn : undefined)),
  };
}

function mostFirst(a: [string, number], b: [string, number]): number {
  return b[1] - a[1] || a[0].localeCompare(b[0]);
}
