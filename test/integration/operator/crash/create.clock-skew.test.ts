import { beforeAll, describe, expect, it } from 'vitest';
import { CREATED_AT_TOLERANCE_MS } from '../../../../src/kinds/shared/cloud-calls.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ALERTS, tileAlert } from '../../../../tools/fixtures/alert.ts';
import { kafkaPipe, lookAlikeBody, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { crashBesideLookAlike, isReady, useOperatorEnv } from '../support.ts';

/** The cloud's clock runs behind the operator's by more than a create takes, and reports whole seconds. */
const CLOUD_CLOCK_BEHIND = { offsetMs: -3_000, precision: 'second' } as const;
/** When someone else's look-alike seems to have been made: well before any intent, by the cloud's clock. */
const WELL_BEFORE = { offsetMs: -(CREATED_AT_TOLERANCE_MS + 60_000) };
/**
 * Room for a worker that starts before the credentials Secret is in its cache (a 10 s retry), in the killed
 * process and again after the restart.
 */
const CRASH_TEST_TIMEOUT_MS = 60_000;

describe.skipIf(clusterSkipReason())('crash-safe create with a cloud clock behind the operator’s', () => {
  const env = useOperatorEnv('create-clock', { operator: false });

  beforeAll(async () => {
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
  });

  /**
   * `crashBesideLookAlike` where the cloud stamps ours before the intent the operator recorded (the premise of
   * every case here): the crashed object holds no id, and ours is still the one adopted.
   */
  async function crashStampedBeforeIntent<T extends { id: string; createdAt: string }>(
    target: Parameters<typeof crashBesideLookAlike>[1],
    cloud: { route: string; named: () => T[]; foreignId: string },
  ): Promise<void> {
    const { orphaned, ours } = await crashBesideLookAlike(env, target, cloud);
    expect(Date.parse(ours.createdAt)).toBeLessThan(
      Date.parse(orphaned.metadata.annotations!['sluice.dev/create-pending']!),
    );
    expect(orphaned.status?.id).toBeUndefined();
  }

  it(
    'a pipe created before a kill -9 but stamped before its intent is adopted, not created again; an older look-alike is not',
    async () => {
      await env.startOperator();
      await env.apply('analytics', { name: 'analytics' });
      const serviceId = (await env.waitFor('analytics', 'service Ready', isReady)).status!.id!;
      await env.stopOperator();

      const spec = kafkaPipe('skewed');
      await env.setClock(WELL_BEFORE);
      const foreign = await env.cloud.createPipe(serviceId, lookAlikeBody(spec));
      await env.setClock(CLOUD_CLOCK_BEHIND);
      const pipesNamed = () =>
        [...env.emulator.store.pipesOf(serviceId).values()].filter((p) => p.name === 'skewed');

      await crashStampedBeforeIntent(
        { kind: 'Pipe', name: 'skewed', spec },
        { route: PIPES, named: pipesNamed, foreignId: foreign.id },
      );
      await env.stopOperator();
    },
    CRASH_TEST_TIMEOUT_MS,
  );

  it(
    'an alert created before a kill -9 but stamped before its intent is adopted, not created again; an older look-alike is not',
    async () => {
      const spec = tileAlert('skewed');
      await env.setClock(WELL_BEFORE);
      const foreign = await env.alerting.createAlert(spec);
      await env.setClock(CLOUD_CLOCK_BEHIND);
      const alertsNamed = () => [...env.emulator.store.alerts.values()].filter((a) => a.name === 'skewed');

      await crashStampedBeforeIntent(
        { kind: 'Alert', name: 'skewed', spec },
        { route: ALERTS, named: alertsNamed, foreignId: foreign.id },
      );
    },
    CRASH_TEST_TIMEOUT_MS,
  );
});
