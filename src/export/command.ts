import { Command, Option } from 'commander';
import { z } from 'zod';
import { describeIssue } from '../cloud/schemas/issues.ts';
import { quota, secretRef } from '../operator/config.ts';
import { EXPORTED_KINDS, type ExportedKind } from './kinds.ts';

const TAG_SELECTOR = /^tag:([^=]+)=(.*)$/;

/** `sluice export` flags, checked before anything is read so a bad one fails with its name. */
export const ExportConfig = z
  .object({
    kubeconfig: z.string().optional(),
    credentialsSecret: secretRef.optional(),
    organization: z.uuid().optional(),
    keyId: z.string().min(1).optional(),
    keySecret: z.string().min(1).optional(),
    managementUrl: z.url().optional(),
    alertsUrl: z.url().optional(),
    alertsToken: z.string().min(1).optional(),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { error: 'must be a namespace name' })
      .optional(),
    kind: z.array(z.enum(EXPORTED_KINDS)).optional(),
    selector: z.array(z.string().regex(TAG_SELECTOR, { error: 'must be tag:<key>=<value>' })).optional(),
    output: z.enum(['yaml', 'json']).default('yaml'),
    outDir: z.string().optional(),
    managementQuota: quota.default({ requests: 10, windowMs: 10_000 }),
    alertingQuota: quota.default({ requests: 100, windowMs: 60_000 }),
  })
  .superRefine((config, ctx) => {
    if (config.credentialsSecret && config.organization) {
      ctx.addIssue({
        code: 'custom',
        path: ['organization'],
        message: 'is not allowed with --credentials-secret',
      });
    }
    if (!config.credentialsSecret) {
      for (const field of ['organization', 'keyId', 'keySecret', 'managementUrl'] as const) {
        if (!config[field]) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: 'is required without --credentials-secret',
          });
        }
      }
    }
  })
  .transform(({ kind, selector, ...config }) => ({
    ...config,
    kinds: new Set<ExportedKind>(kind ?? EXPORTED_KINDS),
    ...(selector
      ? {
          tags: selector.map((text) => {
            const [, key, value] = TAG_SELECTOR.exec(text)!;
            return { key: key!, value: value! };
          }),
        }
      : {}),
  }));
export type ExportConfig = z.output<typeof ExportConfig>;

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
