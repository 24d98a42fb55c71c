import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PlanConfig } from '../../../src/plan/config.ts';
import { runPlan } from '../../../src/plan/run.ts';
import { testKubeconfigPath } from '../../harness/test-cluster.ts';
import { CREDENTIALS_SECRET, type OperatorEnv } from './support.ts';

/**
 * `sluice plan` in this process, as the CLI runs it after parsing its flags: the test's namespace and
 * credentials Secret, JSON output, the client-side quota off; `flags` add or override (`file`, `output`, …).
 */
export async function planInProcess(env: OperatorEnv, flags: Record<string, unknown> = {}) {
  let stdout = '';
  const stderr: string[] = [];
  const code = await runPlan(
    PlanConfig.parse({
      kubeconfig: testKubeconfigPath(),
      namespace: env.namespace,
      credentialsSecret: `${env.namespace}/${CREDENTIALS_SECRET}`,
      output: 'json',
      managementQuota: 'off',
      alertingQuota: 'off',
      ...flags,
    }),
    { stdout: (text) => (stdout += text), stderr: (line) => stderr.push(line) },
  );
  return { code, stdout, stderr: stderr.join('\n') };
}

/** `sluice plan -f` of these documents, written to a folder of their own that is removed afterwards. */
export async function planDocuments(
  env: OperatorEnv,
  documents: readonly object[],
  flags: Record<string, unknown> = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-plan-'));
  try {
    writeFileSync(join(dir, 'planned.yaml'), documents.map((d) => stringify(d)).join('---\n'));
    return await planInProcess(env, { ...flags, file: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
