import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../../tools/cluster/assets.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';

/** Runs the demo with --keep until it says it stays up, then sends `signal`; its output and exit code. */
function keepThenSignal(signal: NodeJS.Signals): Promise<{ output: string; code: number | null }> {
  const demo = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts', 'demo.ts'), '--keep'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const before = output;
      output += chunk.toString();
      if (!before.includes('Ctrl-C stops everything') && output.includes('Ctrl-C stops everything')) {
        demo.kill(signal);
      }
    };
    demo.stdout.on('data', onData);
    demo.stderr.on('data', onData);
    demo.on('error', reject);
    demo.on('exit', (code) => resolve({ output, code }));
  });
}

// The demo's own control plane, emulator and operator: the shared test cluster is only the sign that the
// control plane's binaries are built.
describe.skipIf(clusterSkipReason())('npm run demo -- --keep', () => {
  it('stopped by SIGTERM, stops everything, removes its .sluice/ files and says which', async () => {
    const { output, code } = await keepThenSignal('SIGTERM');
    expect(code, output).toBe(0);
    const stopped = output.split('\n').find((line) => line.includes('[demo] stopped the operator'));
    expect(stopped, output).toMatch(/removed .*\.sluice\/operator\.log, \.sluice\/kube-cache/);
    for (const file of ['kubeconfig', 'operator.log', 'kube-cache']) {
      expect(existsSync(join(repoRoot, '.sluice', file)), file).toBe(false);
    }
  }, 240_000);
});
