import { Command, Option } from 'commander';
import { describeIssue } from '../cloud/schemas/issues.ts';
import { kebab, PlanConfig } from './config.ts';

/** `sluice plan`: what the operator would send to the cloud for the given manifests, sending nothing. */
export function planCommand(): Command {
  return new Command('plan')
    .description(
      'show the cloud calls the operator would make for these manifests (without -f: for every sluice object in the cluster, or in --namespace), reading only; exit status 0 no changes, 2 changes, 1 error',
    )
    .option('-f, --file <path>', 'manifests: a file, a directory of .yaml/.yml/.json files, or - for stdin')
    .option('--kubeconfig <path>', 'kubeconfig (default: as kubectl finds it)')
    .option(
      '-n, --namespace <name>',
      'namespace of manifests that name none (default: default); without -f, plan only this namespace',
    )
    .option(
      '--credentials-secret <namespace/name>',
      "the operator's credentials Secret (the keys the operator reads), for objects without spec.credentialsRef",
    )
    .addOption(
      new Option('--organization <uuid>', 'organization id, instead of --credentials-secret').env(
        'SLUICE_ORGANIZATION_ID',
      ),
    )
    .addOption(
      new Option('--key-id <id>', 'management API key id (a read-only key will do)').env('SLUICE_KEY_ID'),
    )
    .addOption(
      new Option('--key-secret <secret>', 'management API key secret (prefer the environment variable)').env(
        'SLUICE_KEY_SECRET',
      ),
    )
    .addOption(new Option('--management-url <url>', 'management API URL').env('SLUICE_MANAGEMENT_URL'))
    .addOption(new Option('--alerts-url <url>', 'alerting API URL').env('SLUICE_ALERTS_URL'))
    .addOption(
      new Option('--alerts-token <token>', 'alerting API token (prefer the environment variable)').env(
        'SLUICE_ALERTS_TOKEN',
      ),
    )
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option(
      '--management-quota <n/duration>',
      'request budget of the management key; lower it when the operator uses the same key meanwhile',
      '10/10s',
    )
    .option('--alerting-quota <n/duration>', 'request budget of the alerting token', '100/60s')
    .action(async (flags: Record<string, unknown>, command: Command) => {
      const parsed = PlanConfig.safeParse(flags);
      if (!parsed.success) {
        command.error(
          parsed.error.issues
            .map(
              (issue) =>
                `error: --${kebab(String(issue.path[0]))}: ${describeIssue({ ...issue, path: issue.path.slice(1) })}`,
            )
            .join('\n'),
        );
      }
      // Loaded here so `sluice --help` and the other commands never import the plan's dependencies.
      const { runPlan } = await import('./run.ts');
      process.exitCode = await runPlan(parsed.data);
    });
}
