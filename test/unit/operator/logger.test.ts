import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../../src/cloud/redaction.ts';
import { capturedLogger } from '../../support/captured-log.ts';
import { pipeBodyWithCredentials as pipeBody } from '../../support/pipe-request-body.ts';

describe('createLogger', () => {
  it('redacts credential paths even when a caller logs a raw object', () => {
    const { logger, text: logged } = capturedLogger();
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
    const text = logged();
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
    const { logger, text: logged } = capturedLogger();
    logger.trace(
      { body: { pipe: { source: { kafka: { settings: { sasl_password: 'deep-pass-1' } } } } } },
      'cloud request body',
    );
    logger.error({ err: new Error('the pipe failed') }, 'reconcile failed');
    const text = logged();
    expect(text).not.toContain('deep-pass-1');
    expect(text).toContain('sasl_password');
    expect(text).toContain('the pipe failed');
  });
});
