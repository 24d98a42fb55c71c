import { execFileSync } from 'node:child_process';

/**
 * The path of a Node 24 binary from the npm registry's `node` package (npm exec installs it into npm's cache
 * once; later calls take about a second).
 */
export function node24(): string {
  const out = execFileSync(
    'npm',
    ['exec', '--yes', '--package=node@24', '--', 'node', '-p', 'process.version + " " + process.execPath'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  ).trim();
  const [version, path] = out.split('\n').at(-1)!.split(' ');
  if (!version?.startsWith('v24.') || !path) throw new Error(`npm exec node@24 gave "${out}"`);
  return path;
}
