import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { sampleValue } from '../../../support/scrape-sample.ts';
import { until } from '../../../support/wait.ts';
import { isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';

const sha256Hex = (password: string) => createHash('sha256').update(password).digest('hex');
const KIB = 1024;
const BULK = 'x'.repeat(256 * KIB);

describe.skipIf(clusterSkipReason())('Secrets sluice does not reference cost the operator no memory', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('iso-secrets');
    // Listed by the operator's first list, as a restart finds them.
    for (let i = 0; i < 4; i++) await env.putSecret(`unrelated-${i}`, { blob: BULK });
    await env.startOperator();
  });
  afterAll(async () => env?.close());

  const scrape = async () => (await fetch(`${env.operator!.metrics!.url}/metrics`)).text();
  const heldData = async () => {
    const text = await scrape();
    return {
      secrets: sampleValue(text, 'sluice_secrets_cached', { held: 'data' }),
      metadataOnly: sampleValue(text, 'sluice_secrets_cached', { held: 'metadata' }),
      bytes: sampleValue(text, 'sluice_secret_data_bytes', {}),
    };
  };
  const cloudHash = (id: string) => env.emulator.store.services.get(id)?.passwordSha256;

  it('holds the data of the Secrets its objects use only, and follows a reference to another', async () => {
    await env.putSecret('app-password', { password: 'first-password-1A' });
    await env.apply('held', { name: 'held', passwordSecretRef: { name: 'app-password', key: 'password' } });
    const id = (await env.waitFor('held', 'Ready', isReady)).status!.id!;

    // The operator's credentials, the referenced password and the connection Secret; the rest by metadata.
    const ready = await heldData();
    expect(ready.secrets).toBe(3);
    expect(ready.metadataOnly).toBe(4);
    expect(ready.bytes).toBeLessThan(16 * KIB);

    // A rotation is still seen and sent.
    await env.putSecret('app-password', { password: 'second-password-2B' });
    await until(
      'the rotated password in the cloud',
      async () => cloudHash(id) === sha256Hex('second-password-2B'),
    );

    // Referencing a bulky Secret brings in the key it reads, not the rest; dropping the reference lets it go.
    await env.putSecret('unrelated-0', { blob: BULK, password: 'third-password-3C' });
    await env.patchSpec('held', { passwordSecretRef: { name: 'unrelated-0', key: 'password' } });
    await until(
      'the referenced password in the cloud',
      async () => cloudHash(id) === sha256Hex('third-password-3C'),
    );
    const referenced = await heldData();
    expect(referenced.secrets).toBe(3);
    expect(referenced.bytes).toBeLessThan(16 * KIB);

    await env.patchSpec('held', { passwordSecretRef: { name: 'app-password', key: 'password' } });
    await until('the first reference again', async () => cloudHash(id) === sha256Hex('second-password-2B'));
    const released = await heldData();
    expect(released.secrets).toBe(3);
    expect(released.bytes).toBeLessThan(16 * KIB);
  });
});
