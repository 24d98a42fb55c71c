import { Writable } from 'node:stream';
import type { LevelWithSilent } from 'pino';
import { createLogger } from '../../src/operator/logger.ts';

/** The operator's own logger writing into memory, for tests that read what it logged (and what it kept out). */
export function capturedLogger(level: LevelWithSilent = 'trace') {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { logger: createLogger({ level }, stream), text: () => chunks.join('') };
}
