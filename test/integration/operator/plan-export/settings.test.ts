// `sluice plan` and `sluice export` without the operator's flags: they read the running operator's settings
// from its Deployment (as the chart renders it), say which they used and where from, and a flag still wins.
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExportConfig } from '../../../../src/export/config.ts';
import { runExport } from '../../../../src/export/run.ts';
import { find, helmTemplate, kubectlApply, parseManifests } from '../../../../tools/cluster/install.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import { CREDENTIALS_SECRET, isReady, useOperatorEnv } from '../support.ts';
import { planInProcess } from '../plan-in-process.ts';

const CLUSTER = 'team-prod';

describe.skipIf(clusterSkipReason())("sluice plan and export read the running operator's settings", () => {
  const env = useOperatorEnv('plan-settings', { operator: { clusterName: CLUSTER } });
  /** The plan as a CI job runs it: no credentials, no cluster name, only the namespace. */
  const planWithoutFlags = (flags: Record<string, unknown> = {}) =>
    planInProcess(env, { credentialsSecret: undefined, ...flags });

  beforeAll(async () => {
    await env.apply('orders', { name: 'orders' });
    await env.waitFor('orders', 'Ready', isReady, 30_000);
  });

  it('without an operator Deployment, says none was found and stops for want of credentials', async () => {
    const { code, stderr, stdout } = await planWithoutFlags();
    expect(code).toBe(1);
    expect(stderr).toContain(`no sluice operator Deployment watching namespace ${env.namespace} was found`);
    expect(stderr).toContain('credentials-secret: none (default)');
    expect(stdout).toContain('CredentialsMissing');
  });

  it("with the chart's Deployment applied, plans with its credentials Secret and cluster name: nothing to change", async () => {
    const chart = parseManifests(
      helmTemplate({
        namespace: env.namespace,
        values: {
          watchNamespace: env.namespace,
          clusterName: CLUSTER,
          credentials: { existingSecret: CREDENTIALS_SECRET },
          operator: { operatorCredentialsNamespaces: [env.namespace] },
        },
      }),
    );
    kubectlApply(testKubeconfigPath()!, [find(chart, 'Deployment')!]);

    const { code, stderr, stdout } = await planWithoutFlags();
    expect(code, stderr).toBe(0);
    const deployment = `Deployment ${env.namespace}/sluice`;
    expect(stderr).toContain(`credentials-secret: ${env.namespace}/${CREDENTIALS_SECRET} (${deployment})`);
    expect(stderr).toContain(`cluster-name: ${CLUSTER} (${deployment})`);
    expect(stderr).toContain(`operator-credentials-namespaces: ${env.namespace} (${deployment})`);
    expect(stderr).toContain('take-over-from: none (default)');
    const { resources } = JSON.parse(stdout) as { resources: { name: string; action: string }[] };
    expect(resources).toEqual([expect.objectContaining({ name: 'orders', action: 'none' })]);
  });

  it('a flag wins over the Deployment, and says so: another cluster name plans something else', async () => {
    const { code, stderr } = await planWithoutFlags({ clusterName: 'someone-else' });
    expect(stderr).toContain('cluster-name: someone-else (--cluster-name)');
    expect(stderr).toContain(`credentials-secret: ${env.namespace}/${CREDENTIALS_SECRET} (Deployment`);
    expect(code).not.toBe(0);
  });

  it("sluice export without credentials flags reads with the Deployment's credentials Secret", async () => {
    let stdout = '';
    const lines: string[] = [];
    const code = await runExport(
      ExportConfig.parse({
        kubeconfig: testKubeconfigPath(),
        namespace: env.namespace,
        kind: ['DatabaseService'],
        includeManaged: true,
        managementQuota: 'off',
      }),
      { stdout: (text) => (stdout += text), stderr: (line) => lines.push(line) },
    );
    const stderr = lines.join('\n');
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      `credentials-secret: ${env.namespace}/${CREDENTIALS_SECRET} (Deployment ${env.namespace}/sluice)`,
    );
    const names = parseAllDocuments(stdout).map((d) => (d.toJS() as { spec: { name: string } }).spec.name);
    expect(names).toEqual(['orders']);
  });
});
