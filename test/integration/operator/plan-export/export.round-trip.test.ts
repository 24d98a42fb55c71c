import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../../tools/cluster/assets.ts';
import { kubectlApply } from '../../../../tools/cluster/install.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import { buildOrganization, type Organization } from '../../../../tools/fixtures/export.ts';
import { untilValue } from '../../../support/wait.ts';
import {
  CREDENTIALS_SECRET,
  isReady,
  writes,
  type OperatorEnv,
  type SluiceObject,
  useOperatorEnv,
} from '../support.ts';
import { planInProcess } from '../plan-in-process.ts';

const KINDS = ['DatabaseService', 'Pipe', 'ReversePrivateEndpoint', 'QueryEndpoint', 'Alert'];

/** `sluice export` as a user runs it: the CLI in a child process, against the credentials Secret. */
function runExport(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [
    '--import',
    'tsx',
    join(repoRoot, 'src', 'cli.ts'),
    'export',
    ...args,
  ]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/**
 * A backup policy on the first two services (a retention and period, a daily start time), a scaling schedule
 * on the first whose window is active now (so it runs the window's replicas, not its own), and an upgrade
 * window on the second. The window covers this hour and the next, so the test never runs across its end.
 */
async function giveLifecycles(cloud: OperatorEnv['cloud'], [first, second]: string[]) {
  const now = new Date();
  const hour = now.getUTCHours();
  await cloud.updateBackupConfiguration(first!, {
    backupPeriodInHours: 12,
    backupRetentionPeriodInHours: 72,
  });
  await cloud.updateBackupConfiguration(second!, { backupStartTime: '02:30' });
  const base = (await cloud.getService(first!)).numReplicas!;
  await cloud.setScalingSchedule(first!, {
    entries: [
      {
        name: 'now',
        weekdays: [now.getUTCDay()],
        startHourUtc: hour,
        endHourUtc: ((hour + 1) % 24) + 1,
        minReplicas: base + 2,
        maxReplicas: base + 2,
      },
    ],
  });
  await cloud.setUpgradeWindow(second!, { weekday: 3, startHourUtc: 18 });
}

describe.skipIf(clusterSkipReason())('sluice export → kubectl apply: adopting an organization', () => {
  const env = useOperatorEnv('export', { operator: false, timeoutMs: 180_000 });
  let org: Organization;
  let exported: { code: number; stdout: string; stderr: string };
  let manifests: (SluiceObject & { kind: string })[];

  beforeAll(async () => {
    org = await buildOrganization(env.cloud, env.alerting, env.forceState, {
      services: 10,
      pipesPerService: 3,
      endpoints: 3,
      queryEndpoints: 5,
      alerts: 5,
    });
    await giveLifecycles(env.cloud, org.services);
    await env.clearCalls();
    exported = await runExport([
      `--kubeconfig=${testKubeconfigPath()}`,
      `--credentials-secret=${env.namespace}/${CREDENTIALS_SECRET}`,
      `--namespace=${env.namespace}`,
      // The emulator here has no limit; export's own quota at the real defaults is export.quota.test.ts's.
      '--management-quota=off',
      '--alerting-quota=off',
    ]);
    manifests = parseAllDocuments(exported.stdout).map((doc) => doc.toJS()) as never;
  }, 180_000);

  it('writes one manifest per cloud object, reading only', async () => {
    expect(exported.code, exported.stderr).toBe(0);
    const count = (kind: string) => manifests.filter((m) => m.kind === kind).length;
    expect(KINDS.map(count)).toEqual([10, 30, 3, 5, 5]);
    const ids = manifests.map((m) => m.metadata.annotations?.['sluice.dev/external-id']);
    expect(new Set(ids)).toEqual(
      new Set([
        ...org.services,
        ...org.pipes.map((p) => p.id),
        ...org.endpoints,
        ...org.queryEndpoints,
        ...org.alerts,
      ]),
    );
    expect(manifests.every((m) => m.spec.deletionPolicy === 'Orphan')).toBe(true);
    const names = manifests.filter((m) => m.kind === 'DatabaseService').map((m) => m.metadata.name);
    expect(names).toContain('orders-eu');
    expect(names).toContain('orders-eu-2');
    expect(writes(await env.calls())).toEqual([]);
    expect(exported.stderr).toContain('[10/10]');
  });

  it('writes the backup policy, the scaling schedule with the sizing outside it, and the upgrade window', async () => {
    const specOf = (id: string) =>
      manifests.find((m) => m.metadata.annotations?.['sluice.dev/external-id'] === id)!.spec;
    const [first, second] = [specOf(org.services[0]!), specOf(org.services[1]!)];
    const schedule = await env.cloud.getScalingSchedule(org.services[0]!);
    const base = schedule.baseConfig!.minReplicas!;
    // The cloud runs the active window's replicas; the spec holds the service's own.
    expect((await env.cloud.getService(org.services[0]!)).numReplicas).toBe(base + 2);
    expect(first).toMatchObject({
      numReplicas: base,
      backups: { periodInHours: 12, retentionInHours: 72 },
      scalingSchedule: [
        {
          name: 'now',
          weekdays: [schedule.entries[0]!.weekdays[0]],
          startHourUtc: schedule.entries[0]!.startHourUtc,
          endHourUtc: schedule.entries[0]!.endHourUtc,
          minReplicas: base + 2,
          maxReplicas: base + 2,
        },
      ],
    });
    expect(first).not.toHaveProperty('upgradeWindow');
    expect(second).toMatchObject({
      backups: { startTime: '02:30' },
      upgradeWindow: { weekday: 3, startHourUtc: 18 },
    });
    expect(second).not.toHaveProperty('scalingSchedule');
    // A policy that is the cloud's default is no field at all.
    expect(specOf(org.services[2]!)).not.toHaveProperty('backups');
  });

  it('writes manifests the apiserver accepts whole (dry-run=server)', () => {
    const answer = kubectlApply(testKubeconfigPath()!, exported.stdout, { dryRun: true });
    expect(
      answer
        .trim()
        .split('\n')
        .filter((line) => line.includes('(server dry run)')),
    ).toHaveLength(53);
  });

  it('adopts everything with zero cloud writes once the listed Secrets exist, and fills status and connection Secrets', async () => {
    const listed = [
      ...exported.stderr.matchAll(/kubectl create secret generic (\S+) -n \S+ ((?:--from-literal=\S+ ?)+)/g),
    ];
    // Pipes with credentials: kafka SCRAM (5), object storage access key and connection string (10), kinesis (5), postgres (5).
    expect(listed).toHaveLength(25);
    for (const [, name, literals] of listed) {
      const keys = [...literals!.matchAll(/--from-literal=([^=]+)=/g)].map((m) => m[1]!);
      await env.putSecret(name!, Object.fromEntries(keys.map((key) => [key, `value-of-${key}`])));
    }
    await env.clearCalls();
    await env.startOperator({ syncInterval: '2s' });
    kubectlApply(testKubeconfigPath()!, exported.stdout);

    const everyReady = async () => {
      const lists = await Promise.all(
        KINDS.map((kind) => env.objects.list('sluice.dev/v1alpha1', kind, env.namespace)),
      );
      return lists.flatMap((list) => list.items as unknown as SluiceObject[]);
    };
    // Every object is adopted and Ready, the dependants of a stopped service too: they exist in the cloud, so
    // they are observed; only a write would need the service running.
    const objects = await untilValue(
      'the 53 objects Ready',
      everyReady,
      (all) => all.length === 53 && all.every((o) => isReady(o)),
      90_000,
      250,
    ).catch(everyReady); // on a time-out, what is still not Ready is named below
    const unsettled = objects.filter((o) => !isReady(o)).map((o) => [o.metadata.name, o.status?.conditions]);
    expect(unsettled, JSON.stringify(unsettled, null, 1)).toEqual([]);
    expect(objects).toHaveLength(53);
    const stopped = new Set(
      manifests
        .filter((m) => m.kind === 'DatabaseService' && m.spec.state === 'Stopped')
        .map((m) => m.metadata.name),
    );
    expect(
      objects.filter((o) => stopped.has((o.spec.serviceRef as { name?: string } | undefined)?.name ?? '')),
    ).not.toHaveLength(0);
    expect(objects.every((o) => o.status?.id === o.metadata.annotations?.['sluice.dev/external-id'])).toBe(
      true,
    );

    const calls = await env.calls();
    expect(writes(calls)).toEqual([]);
    expect(calls.filter((c) => c.status === 429)).toEqual([]);

    const service = objects.find((o) => o.status?.id === org.services[0])!;
    const secret = await env.secret(`${service.metadata.name}-connection`);
    expect(secret).toMatchObject({
      host: expect.stringContaining('emulator.sluice.dev'),
      port: '8443',
      username: 'default',
      https_port: '8443',
      nativesecure_port: '9440',
    });
    expect(service.status?.state).toBe('running');
  }, 120_000);

  it('then plans none for every exported object, reading only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-exported-'));
    writeFileSync(join(dir, 'exported.yaml'), exported.stdout);
    await env.clearCalls();
    const { code, stdout } = await planInProcess(env, { file: dir });
    rmSync(dir, { recursive: true, force: true });
    const { resources } = JSON.parse(stdout) as { resources: { name: string; action: string }[] };
    expect(resources).toHaveLength(53);
    expect(resources.filter((r) => r.action !== 'none')).toEqual([]);
    expect(code).toBe(0);
    expect(writes(await env.calls())).toEqual([]);
  }, 60_000);

  it('renders a connection Secret template into the Secret and renders it again when the host changes', async () => {
    await env.clearCalls();
    const name = manifests.find(
      (m) => m.metadata.annotations?.['sluice.dev/external-id'] === org.services[0],
    )!.metadata.name;
    const connection = `${name}-connection`;
    await env.of('DatabaseService').patchSpec(name, {
      connectionSecret: {
        template: { DATABASE_URL: 'https://{{ .username }}@{{ .host }}:{{ .port }}/?db=app' },
      },
    });
    const rendered = (test: (url: string | undefined) => boolean) =>
      untilValue(
        'the DATABASE_URL rendered',
        async () => (await env.secret(connection))?.DATABASE_URL,
        test,
        20_000,
      );
    const host = (await env.secret(connection))!.host!;
    expect(await rendered((url) => url !== undefined)).toBe(`https://default@${host}:8443/?db=app`);

    await env.forceState({ kind: 'service', id: org.services[0], host: 'moved.eu-central-1.example.dev' });
    expect(await rendered((url) => url?.includes('moved') === true)).toBe(
      'https://default@moved.eu-central-1.example.dev:8443/?db=app',
    );
    expect((await env.secret(connection))!.host).toBe('moved.eu-central-1.example.dev');
    expect(writes(await env.calls())).toEqual([]);
    expect(env.logs.join('\n')).not.toContain('moved.eu-central-1.example.dev:8443/?db=app');
  }, 60_000);
});
