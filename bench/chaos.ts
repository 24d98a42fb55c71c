// `npm run chaos`: the chaos suite at the sizes (100 creates of mixed kinds; 20 kill -9s; 20 % cloud
// faults; an apiserver restart) on a control plane of its own, then the bad-input checks. Prints the summary
// table and every finding; exits 1 when a scenario found a duplicate, an orphan, a secret or did not converge.
import { parseArgs } from 'node:util';
import { startControlPlane } from '../tools/cluster/control-plane.ts';
import { admissionBadInput, contractBadInput } from '../tools/chaos/bad-input-run.ts';
import { FULL, runSuite, summaryTable } from '../tools/chaos/suite.ts';

const { values: args } = parseArgs({
  options: {
    creates: { type: 'string', default: String(FULL.creates) },
    kills: { type: 'string', default: String(FULL.kills) },
    'fault-rate': { type: 'string', default: String(FULL.faultRate) },
  },
});
const size = {
  ...FULL,
  creates: Number(args.creates),
  kills: Number(args.kills),
  faultRate: Number(args['fault-rate']),
};

const cluster = await startControlPlane();
const log = (message: string) => console.log(`[chaos] ${message}`);
let failed = false;
try {
  const results = await runSuite(cluster, size, log);
  console.log(`\n${summaryTable(results)}\n`);
  for (const r of results) {
    const findings = [
      ...r.duplicates,
      ...r.orphans,
      ...r.mismatched,
      ...r.retryAfterViolations,
      ...r.secretFindings,
    ];
    for (const finding of findings) console.log(`  ${r.scenario}: ${finding}`);
    if (findings.length > 0 || r.converged !== r.objects) failed = true;
  }
  for (const [what, result] of [
    ['admission', await admissionBadInput(cluster.kubeconfig)],
    ['emulator contract', await contractBadInput()],
  ] as const) {
    console.log(
      `bad input, ${what}: ${result.tried} cases, ${result.failures.length} not refused as they should be`,
    );
    for (const failure of result.failures) console.log(`  ${failure}`);
    if (result.failures.length > 0) failed = true;
  }
} finally {
  await cluster.stop();
}
process.exitCode = failed ? 1 : 0;
