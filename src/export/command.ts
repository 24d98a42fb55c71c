import { Command, Option } from 'commander';
import { addCloudAccessOptions, parseFlags } from '../command-line/flags.ts';
import { ExportConfig } from './config.ts';
import { KINDS } from '../kinds/index.ts';

/** The kinds `sluice export` writes: every kind sluice serves. */
const KIND_NAMES = KINDS.map((schema) => schema.kind) as [string, ...string[]];

const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
];

/** `sluice export`: manifests that bring what exists in the cloud under sluice, unchanged. */
export function exportCommand(): Command {
  const command = new Command('export')
    .description(
      'write a manifest for every service, pipe, reverse private endpoint, query endpoint and alert in the cloud, to adopt them unchanged',
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig, to read --credentials-secret and the objects the cluster already manages (default: as kubectl finds it)',
    )
    .option('-n, --namespace <name>', 'metadata.namespace of every manifest (default: none, kubectl decides)')
    .option(
      `--kind <kinds>`,
      `only these kinds, comma-separated or repeated: ${KIND_NAMES.join(', ')}`,
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
    .option(
      '--owned-by <cluster-name>',
      "only the objects the cloud records as this cluster name's (and what lives in their services), as the objects they were: namespace, name, and sluice.dev/owner-cluster to take them back (where --take-over-from lists that cluster)",
    )
    .option('--out-dir <dir>', 'write one file per object here instead of printing them')
    .option(
      '--field-policy <policy=field>',
      'write spec.fieldPolicy into each manifest whose kind has the field: createOnly=<field>, reportOnly=<field> or additive=<list> (e.g. additive=ipAccessList,additive=tags,reportOnly=scaling.replicas); comma-separated or repeated',
      collect,
    )
    .option(
      '--credentials-ref <secret>',
      "write spec.credentialsRef: {name: <secret>} into every manifest: a Secret in its namespace with the cloud credentials to use instead of the operator's",
    )
    .option(
      '--include-managed',
      'also export the objects a sluice object of the cluster (read through --kubeconfig) already manages; left out by default, as the operator refuses a second object for them (AlreadyManaged)',
    )
    .option(
      '--observe',
      'export with spec.managementPolicy: Observe: sluice then only reads what it adopts until you switch to Full',
    );
  return addCloudAccessOptions(command, {
    credentialsSecret:
      "Secret with the cloud credentials (default: the running operator's, read from its Deployment's arguments)",
    organization: 'organization id, without --credentials-secret',
    keyId: 'management API key id',
    alertsUrl: 'alerting API URL (alerts are exported only with a token)',
    managementQuota: 'request budget of the management key; lower it when the operator shares the key',
  }).action(async (flags: Record<string, unknown>, command: Command) => {
    const config = parseFlags(ExportConfig, flags, command);
    // Loaded here so `sluice --help` and the other commands never import the export's dependencies.
    const { runExport } = await import('./run.ts');
    process.exitCode = await runExport(config);
  });
}
