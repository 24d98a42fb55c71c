import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Snapshot } from './store.ts';

export interface EmulatorCredentials {
  organizationId: string;
  keyId: string;
  keySecret: string;
  alertsToken: string;
}

/** The state file: resources plus the credentials they were created under, so a restart keeps both. */
export interface StateFileContent {
  version: 1;
  credentials: EmulatorCredentials;
  resources: Snapshot;
}

/** Reads a state file; undefined when there is none yet. A file that is not a state file is an error. */
export function readStateFile(path: string): StateFileContent | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch (error) {
    throw new Error(`state file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const candidate = content as Partial<StateFileContent> | null;
  if (candidate?.version !== 1 || !candidate.credentials || candidate.resources?.version !== 1) {
    throw new Error(`state file ${path} is not a sluice emulator state file (version 1)`);
  }
  return candidate as StateFileContent;
}

/**
 * Debounced, atomic writes: changes within `debounceMs` are written once, to a temporary file that is then
 * renamed over the state file, so a crash never leaves half a file. Writes never overlap.
 */
export class StateFileWriter {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;

  constructor(
    private readonly path: string,
    private readonly produce: () => StateFileContent,
    private readonly debounceMs = 100,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  schedule(): void {
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.debounceMs);
  }

  /** Writes now if anything changed (waiting for a write in progress first). */
  async flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = this.write().finally(() => (this.writing = undefined));
    await this.writing;
  }

  private async write(): Promise<void> {
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFile(temporary, JSON.stringify(this.produce()), { mode: 0o600 });
      await rename(temporary, this.path);
    } catch (error) {
      this.onError(error);
    }
  }
}
