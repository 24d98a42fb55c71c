import { Command, Option } from 'commander';
import { describeIssue } from '../cloud/schemas/issues.ts';
import { ExportConfig } from './config.ts';
import { EXPORTED_KINDS } from './kinds.ts';

const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
];

/** `sluice export`: manifests that bring what exists in the cloud under sluice, unchanged. */
export function exportCommand(): Command {
  return new Command('export')
    .description(
      'write a manifest for every service, pipe, reverse private endpoint, query endpoint and alert in the cloud, to adopt them unchanged',
    )
    .option('--kubeconfig <path>', 'kubeconfig, to read --credentials-secret (default: as kubectl finds it)')
    .option(
      '--credentials-secret <namespace/name>',
      'Secret with the cloud credentials (the keys the operator reads)',
    )
    .addOption(
      new Option('--organization <uuid>', 'organization id, without --credentials-secret').env(
        'SLUICE_ORGANIZATION_ID',
      ),
    )
    .addOption(new Option('--key-id <id>', 'management API key id').env('SLUICE_KEY_ID'))
    .addOption(
      new Option('--key-secret <secret>', 'management API key secret (prefer the environment variable)').env(
        'SLUICE_KEY_SECRET',
      ),
    )
    .addOption(new Option('--management-url <url>', 'management API URL').env('SLUICE_MANAGEMENT_URL'))
    .addOption(
      new Option('--alerts-url <url>', 'alerting API URL (alerts are exported only with a token)').env(
        'SLUICE_ALERTS_URL',
      ),
    )
    .addOption(
      new Option('--alerts-token <token>', 'alerting API token (prefer the environment variable)').env(
        'SLUICE_ALERTS_TOKEN',
      ),
    )
    .option('--namespace <name>', 'metadata.namespace of every manifest (default: none, kubectl decides)')
    .option(
      `--kind <kinds>`,
      `only these kinds, comma-separated or repeated: ${EXPORTED_KINDS.join(', ')}`,
      collect,
    )
    .option(
      '--selector <tag:key=value>',
      'only services carrying this tag (repeat for several) and what lives in them',
      collect,
    )
    .addOption(
      new Option('-o, --output <format>', 'manifest format').choices(['yaml', 'json']).default('yaml'),
    )
    .option('--out-dir <dir>', 'write one file per object here instead of printing them')
    .option(
      '--observe',
      'export with spec.managementPolicy: Observe: sluice then only reads what it adopts until you switch to Full',
    )
    .option(
      '--management-quota <n/duration>',
      'request budget of the management key; lower it when the operator shares the key',
      '10/10s',
    )
    .option('--alerting-quota <n/duration>', 'request budget of the alerting token', '100/60s')
    .action(async (flags: Record<string, unknown>, command: Command) => {
      const parsed = ExportConfig.safeParse(flags);
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
      // Loaded here so `sluice --help` and the other commands never import the export's dependencies.
      const { runExport } = await import('./run.ts');
      process.exitCode = await runExport(parsed.data);
    });
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
