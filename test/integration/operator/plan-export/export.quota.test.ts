import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../../tools/cluster/assets.ts';
import { kubectlApply } from '../../../../tools/cluster/install.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import {
  exportFrom,
  isReady,
  startOperatorEnv,
  type CallRecord,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

const examplesDir = join(repoRoot, 'deploy', 'examples');
const demoIn = (namespace: string): Manifest[] =>
  readdirSync(examplesDir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => parseAllDocuments(readFileSync(join(examplesDir, file), 'utf8')))
    .map((document) => document.toJS() as Manifest)
    .map((m) => ({ ...m, metadata: { ...m.metadata, namespace } }));

/** `sluice export` with the operator's credentials Secret, as the README shows it, at the default quota. */
async function exportWithOperatorKey(env: OperatorEnv, flags: Record<string, unknown> = {}) {
  // The demo this cluster manages: the whole organization is read and written out.
  const { code, stderr } = await exportFrom(env, { includeManaged: true, ...flags });
  return { code, stderr };
}

describe.skipIf(clusterSkipReason())(
  'sluice export under the real quota, the operator busy on the same key',
  () => {
    let env: OperatorEnv;
    let demo: Manifest[];

    beforeAll(async () => {
      env = await startOperatorEnv('export-quota', { rateLimit: { requests: 10, windowSeconds: 10 } });
      await env.startOperator({ managementQuota: '10/10s' });
      demo = demoIn(env.namespace);
      kubectlApply(testKubeconfigPath()!, demo as never);
      for (const m of demo.filter((d) => d.apiVersion.startsWith('sluice.dev'))) {
        await env.of<SluiceObject>(m.kind).waitFor(m.metadata.name, 'Ready', isReady, 120_000);
      }
    }, 180_000);
    afterAll(async () => env?.close());

    /** The operator spends the key's current window: a fresh read of every object, asked for by annotation. */
    async function operatorSpendsTheWindow(mark: string) {
      const sluice = demo.filter((m) => m.apiVersion.startsWith('sluice.dev'));
      const asked = { 'sluice.dev/reconcile-requested-at': mark };
      for (const m of sluice) await env.of(m.kind).annotate(m.metadata.name, asked);
      for (const m of sluice) {
        await env
          .of<SluiceObject>(m.kind)
          .waitFor(m.metadata.name, 'the fresh read', (o) => o?.status?.lastHandledReconcileAt === mark);
      }
    }

    it('starts its budget as spent: right after the operator spent the window it earns no 429', async () => {
      await operatorSpendsTheWindow('before-export');
      await env.stopOperator();
      const before = (await env.calls()).length;
      const result = await exportWithOperatorKey(env);
      expect(result.code, result.stderr).toBe(0);
      const calls: CallRecord[] = (await env.calls()).slice(before);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
      expect(result.stderr).toMatch(
        /exported \d+ objects \(0 skipped\) with \d+ cloud requests, none answered 429 in/,
      );
    }, 60_000);

    it('reports in its summary every 429 it earned (unthrottled, right after the operator spent the window)', async () => {
      await env.startOperator({ managementQuota: '10/10s' });
      await operatorSpendsTheWindow('before-unthrottled-export');
      await env.stopOperator();
      const before = (await env.calls()).length;
      const result = await exportWithOperatorKey(env, { managementQuota: 'off' });
      expect(result.code, result.stderr).toBe(0);
      const refused = (await env.calls()).slice(before).filter((c) => c.status === 429).length;
      expect(refused).toBeGreaterThan(0);
      expect(result.stderr).toContain(
        `cloud requests, ${refused} answered 429 (the key's quota was spent elsewhere too`,
      );
    }, 60_000);
  },
);
