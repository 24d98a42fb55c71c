// The export is read by kubectl, whose YAML is 1.1: every string must come back as the same string.
import { beforeAll, describe, expect, it } from 'vitest';
import { kubectlBin, run } from '../../../../tools/cluster/install.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import { exportFrom, useOperatorEnv } from '../support.ts';

/** Strings a YAML 1.1 reader takes for a boolean, a date, a number or null when written plain. */
const LOOKALIKES = [
  'yes',
  'off',
  'on',
  'no',
  'y',
  'NO',
  'True',
  '2001-12-14',
  '1e3',
  '0x1F',
  '0o17',
  '017',
  '-0o7',
  '0O17',
  '+0x1F',
  '.5',
  '1_000',
];
const TAGS = [
  { key: 'approved', value: 'yes' },
  { key: 'yes', value: '2001-12-14' },
  { key: 'null', value: '~' },
  ...LOOKALIKES.map((value, i) => ({ key: `lookalike-${i}`, value })),
  { key: 'empty', value: 'null' },
  { key: 'time', value: '12:30:45' },
];

describe.skipIf(clusterSkipReason())('sluice export read back by kubectl', () => {
  const env = useOperatorEnv('export-kubectl', { operator: false });

  beforeAll(async () => {
    await env.cloud.createService({
      name: 'off',
      provider: 'aws',
      region: 'us-east-1',
      tags: TAGS,
      ipAccessList: [{ source: '10.0.0.0/8', description: '2001-12-14' }],
    });
  });

  it('writes every string so that kubectl apply --dry-run=server reads back the same string', async () => {
    const { code, stdout: yaml, stderr } = await exportFrom(env, { kind: ['DatabaseService'] });
    expect(code, stderr).toBe(0);

    const applied = JSON.parse(
      run(
        kubectlBin(),
        ['--kubeconfig', testKubeconfigPath()!, 'apply', '--dry-run=server', '-o', 'json', '-f', '-'],
        yaml,
      ),
    ) as { kind: string; items?: unknown[] } & Record<string, unknown>;
    const service = (applied.items?.[0] ?? applied) as {
      spec: { name: string; tags: unknown[]; ipAccessList: { description: string }[] };
    };
    expect(service.spec.name).toBe('off');
    expect(service.spec.tags).toEqual(TAGS);
    expect(service.spec.ipAccessList[0]!.description).toBe('2001-12-14');
  });
});
