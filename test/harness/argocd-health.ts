// Runs Argo CD health checks the way Argo CD runs them: gopher-lua through test/envtest/argocd-health (built
// with the control plane by `npm run envtest:setup`).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { GROUP } from '../../src/kinds/shared/common.ts';
import { assetsDir, repoRoot } from '../../tools/cluster/assets.ts';

export interface HealthResult {
  dir: string;
  inputPath: string;
  expected: { status: string; message: string };
  actual?: { status: string; message: string };
  error?: string;
}

/** Runs the gopher-lua harness over a resource_customizations directory; without a prebuilt binary, `go run`. */
export function runArgoHealthHarness(dir: string): HealthResult[] {
  const bin = join(assetsDir(), 'argocd-health');
  const out = existsSync(bin)
    ? execFileSync(bin, [dir], { encoding: 'utf8' })
    : execFileSync('go', ['run', '.', dir], {
        cwd: join(repoRoot, 'test', 'envtest', 'argocd-health'),
        encoding: 'utf8',
        env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
      });
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as HealthResult);
}

/** The health Argo CD shows for one live object, from the generated check of its kind in deploy/argocd/. */
export function argoHealthOf(object: { kind?: string }): { status: string; message: string } {
  const kind = object.kind;
  if (!kind) throw new Error('the object has no kind');
  const generated = join(repoRoot, 'deploy', 'argocd', 'resource_customizations', GROUP, kind, 'health.lua');
  const scratch = mkdtempSync(join(tmpdir(), 'sluice-argocd-'));
  try {
    const kindDir = join(scratch, GROUP, kind);
    mkdirSync(join(kindDir, 'testdata'), { recursive: true });
    writeFileSync(join(kindDir, 'health.lua'), readFileSync(generated, 'utf8'));
    writeFileSync(join(kindDir, 'testdata', 'live.yaml'), stringify(object));
    // The harness compares nothing; the expected status is only a placeholder it echoes.
    writeFileSync(
      join(kindDir, 'health_test.yaml'),
      stringify({ tests: [{ healthStatus: { status: 'Unknown' }, inputPath: 'testdata/live.yaml' }] }),
    );
    const [result] = runArgoHealthHarness(scratch);
    if (!result?.actual) throw new Error(`the health check failed: ${result?.error ?? 'no result'}`);
    return result.actual;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
