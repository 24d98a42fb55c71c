import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { untilValue } from '../../../support/wait.ts';
import { condition, isReady, useOperatorEnv } from '../support.ts';

/** pino's levels: info 30, warn 40, error 50. */
const INFO = 30;
const ERROR = 50;

/**
 * A Secret the user has not made yet is the user's to fix: the object's conditions say so, the log says so
 * at info without a stack trace, and once the Secret appears without its key Ready and Synced both say that,
 * not what was true before.
 */
describe.skipIf(clusterSkipReason())('A Secret the spec references and the user has not made', () => {
  const env = useOperatorEnv('missing-secret');

  const lines = (from: number) =>
    env.logs
      .slice(from)
      .map((line) => JSON.parse(line) as { level: number; msg: string; stack?: string; err?: unknown });

  it('is reported in the conditions and logged at info without a stack; Ready and Synced follow the Secret', async () => {
    const from = env.logs.length;
    await env.apply('orders', {
      name: 'orders',
      passwordSecretRef: { name: 'db-password', key: 'password' },
    });
    const missing = await env.waitFor(
      'orders',
      'SecretMissing',
      (r) => condition(r, 'Synced')?.reason === 'SecretMissing',
    );
    const notFound = /Secret \S+\/db-password \(passwordSecretRef\) not found/;
    expect(condition(missing, 'Synced')!.message).toMatch(notFound);
    expect(condition(missing, 'Ready')).toMatchObject({
      status: 'False',
      message: expect.stringMatching(notFound),
    });
    // The Secret is read before any cloud client exists: Ready says so, not that an attempt failed.
    expect(condition(missing, 'Ready')!.message).toMatch(/^no cloud call was made: Secret /);

    // The log line follows the status write that the wait above saw.
    const logged = await untilValue(
      'the missing Secret logged',
      async () => lines(from).filter((l) => JSON.stringify(l).includes('db-password')),
      (found) => found.length > 0,
      20_000,
    );
    expect(logged.every((l) => l.level === INFO)).toBe(true);
    expect(JSON.stringify(lines(from))).not.toContain('"stack"');
    expect(lines(from).filter((l) => l.level >= ERROR)).toEqual([]);

    await env.putSecret('db-password', { username: 'admin' });
    const noKey = await env.waitFor('orders', 'the missing key reported', (r) =>
      /has no key password/.test(condition(r, 'Synced')?.message ?? ''),
    );
    expect(condition(noKey, 'Ready')!.message).toMatch(/has no key password$/);

    await env.putSecret('db-password', { password: 'a-long-password-1' });
    await env.waitFor('orders', 'Ready', isReady);
    expect(lines(from).filter((l) => l.level >= ERROR)).toEqual([]);
  });
});
