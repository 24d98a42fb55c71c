// A Secret an object names is read, but only what sluice uses of it is kept: the keys it reads, at most
// 64 KiB of them per Secret. A tenant naming many large Secrets (as credentials, as a password) costs the
// operator what it reads of them, never their size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tileAlert } from '../../../../tools/fixtures/alert.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { sampleValue } from '../../../support/scrape-sample.ts';
import { condition, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';

const KIB = 1024;
const BULK = 'x'.repeat(512 * KIB);
const SECRETS = 8;

describe.skipIf(clusterSkipReason())('what sluice keeps of the Secrets objects name', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('secret-size');
    await env.startOperator();
  });
  afterAll(async () => env?.close());

  const heldBytes = async () => {
    const text = await (await fetch(`${env.operator!.metrics!.url}/metrics`)).text();
    return {
      secrets: sampleValue(text, 'sluice_secrets_cached', { held: 'data' }),
      bytes: sampleValue(text, 'sluice_secret_data_bytes', {}),
    };
  };

  it('keeps only the keys it reads from credentials Secrets, however large the rest', async () => {
    const alerts = env.of<SluiceObject>('Alert');
    const { credentials } = env.emulator;
    for (let i = 0; i < SECRETS; i++) {
      await env.putSecret(`bulky-${i}`, {
        alertsUrl: env.emulator.url,
        alertsToken: credentials.alertsToken!,
        blob: BULK,
      });
      await alerts.apply(`cpu-${i}`, { ...tileAlert(`cpu-${i}`), credentialsRef: { name: `bulky-${i}` } });
    }
    for (let i = 0; i < SECRETS; i++) {
      await alerts.waitFor(
        `cpu-${i}`,
        'a reconcile with its Secret',
        (o) => !!o?.status?.credentialsSecret,
        30_000,
      );
    }
    const held = await heldBytes();
    // The operator's credentials and each Alert's Secret are held, without their blobs.
    expect(held.secrets).toBeGreaterThanOrEqual(SECRETS);
    expect(held.bytes).toBeLessThan(SECRETS * 4 * KIB);
  });

  it('refuses a used key over 64 KiB, naming the Secret and the key, and keeps none of it', async () => {
    await env.putSecret('huge-password', { password: 'p'.repeat(100 * KIB) });
    await env.apply('huge', { name: 'huge', passwordSecretRef: { name: 'huge-password', key: 'password' } });
    const refused = await env.waitFor(
      'huge',
      'Synced=False SecretTooLarge',
      (o) => condition(o, 'Synced')?.reason === 'SecretTooLarge',
    );
    expect(condition(refused, 'Synced')!.message).toContain(
      `Secret ${env.namespace}/huge-password key password`,
    );
    expect(condition(refused, 'Synced')!.message).toContain('64 KiB');
    expect(refused.status?.id).toBeUndefined();
    expect((await heldBytes()).bytes).toBeLessThan((SECRETS + 2) * 4 * KIB);
  });
});
