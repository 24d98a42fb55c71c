import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../../src/cloud/redaction.ts';
import { createLogger } from '../../../src/operator/logger.ts';
import { pipeBodyWithCredentials as pipeBody } from '../../support/pipe-request-body.ts';

function captured() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('redacts credential paths even when a caller logs a raw object', () => {
    const out = captured();
    const logger = createLogger({ level: 'trace' }, out.stream);
    logger.info(
      {
        headers: { authorization: 'Basic a2V5OnNlY3JldA==' },
        keySecret: 'key-secret-1',
        token: 'bearer-token-1',
        body: pipeBody,
        req: { headers: { authorization: 'Bearer bearer-token-2' } },
        config: { password: 'pw-1', credentials: { password: 'pw-2' } },
      },
      'something happened',
    );
    const text = out.text();
    expect(text).toContain('something happened');
    for (const secret of [
      'a2V5OnNlY3JldA==',
      'key-secret-1',
      'bearer-token-1',
      'bearer-token-2',
      'kafka-pass-123',
      'sr-pass-456',
      'pw-1',
      'pw-2',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain(REDACTED);
  });

  it('redacts a field named like a credential at any depth, and keeps an error readable', () => {
    const out = captured();
    const logger = createLogger({ level: 'trace' }, out.stream);
    logger.trace(
      { body: { pipe: { source: { kafka: { settings: { sasl_password: 'deep-pass-1' } } } } } },
      'cloud request body',
    );
    logger.error({ err: new Error('the pipe failed') }, 'reconcile failed');
    const text = out.text();
    expect(text).not.toContain('deep-pass-1');
    expect(text).toContain('sasl_password');
    expect(text).toContain('the pipe failed');
  });
});
