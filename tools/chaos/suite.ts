// The chaos suite at a given size, for `npm run chaos` (the sizes) and the CI test (reduced): the three
// disruption scenarios on one control plane, and the summary table.
import type { ControlPlane } from '../cluster/control-plane.ts';
import { runChaos, type ChaosResult } from './run.ts';

export interface SuiteSize {
  creates: number;
  kills: number;
  faultRate: number;
  spreadMs: number;
  timeoutMs: number;
}

export const FULL: SuiteSize = {
  creates: 100,
  kills: 20,
  faultRate: 0.2,
  spreadMs: 30_000,
  timeoutMs: 240_000,
};
export const REDUCED: SuiteSize = {
  creates: 20,
  kills: 4,
  faultRate: 0.1,
  spreadMs: 8_000,
  timeoutMs: 60_000,
};

export async function runSuite(
  cluster: ControlPlane,
  size: SuiteSize,
  log: (message: string) => void = () => {},
): Promise<ChaosResult[]> {
  const common = { kubeconfig: cluster.kubeconfig, ...size, log };
  const results = [
    await runChaos({ ...common, name: 'kill -9', kills: size.kills, faultRate: 0, seed: 1 }),
    await runChaos({ ...common, name: 'cloud faults', kills: 0, faultRate: size.faultRate, seed: 2 }),
  ];
  if (cluster.restartApiserver)
    results.push(
      await runChaos({
        ...common,
        name: 'apiserver restart, watch cuts',
        cuts: 3,
        kills: 0,
        faultRate: 0,
        restartApiserver: () => cluster.restartApiserver!(),
        seed: 3,
      }),
    );
  return results;
}

/** The summary table (markdown, so it can go into docs/benchmarks.md as printed). */
export function summaryTable(results: ChaosResult[]): string {
  const rows = [
    [
      'scenario',
      'objects',
      'kills',
      'exits restarted',
      'faults injected',
      'apiserver restarts',
      'watch cuts (connections)',
      'renamed / deleted after',
      'duplicates',
      'orphans',
      'converged',
      'max time to converge',
      '429s',
      'calls inside Retry-After',
      'secrets found',
    ],
    ...results.map((r) => [
      r.scenario,
      String(r.objects),
      String(r.kills),
      String(r.exits),
      String(r.faultsInjected),
      String(r.restarts),
      r.cuts ? `${r.cuts} (${r.connectionsCut})` : '-',
      r.restarts ? `${r.renamed} / ${r.deleted}` : '-',
      String(r.duplicates.length),
      String(r.orphans.length),
      `${r.converged}/${r.objects}`,
      `${(r.maxConvergeMs / 1000).toFixed(1)} s`,
      String(r.rateLimited),
      String(r.retryAfterViolations.length),
      String(r.secretFindings.length),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join('\n');
}
