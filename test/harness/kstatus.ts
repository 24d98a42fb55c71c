// Reads object status the way Flux, kpt and cli-utils do: status.Compute from sigs.k8s.io/cli-utils/pkg/kstatus,
// through test/envtest/kstatus (built with the control plane by `npm run envtest:setup`).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { assetsDir, repoRoot } from '../../tools/cluster/assets.ts';

/** kstatus's verdict on one object: InProgress, Failed, Current, Terminating, NotFound or Unknown. */
export interface KstatusResult {
  status: string;
  message: string;
}

/** kstatus's verdict on each object, in order; without a prebuilt binary, `go run`. */
export function kstatusOf(objects: readonly object[]): KstatusResult[] {
  const input = objects.map((object) => JSON.stringify(object)).join('\n') + '\n';
  const bin = join(assetsDir(), 'kstatus');
  const out = existsSync(bin)
    ? execFileSync(bin, [], { input, encoding: 'utf8' })
    : execFileSync('go', ['run', '.'], {
        cwd: join(repoRoot, 'test', 'envtest', 'kstatus'),
        input,
        encoding: 'utf8',
        env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
      });
  return out
    .trim()
    .split('\n')
    .map((line, i) => {
      const result = JSON.parse(line) as Partial<KstatusResult> & { error?: string };
      if (result.error) throw new Error(`kstatus could not read object ${i}: ${result.error}`);
      return { status: result.status ?? 'Unknown', message: result.message ?? '' };
    });
}
