import { type Command, Option } from 'commander';
import type { z } from 'zod';
import { describeIssue } from '../cloud/schemas/issues.ts';

/** `keySecret` → `key-secret`: how a config field is spelled as a flag. */
export const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * A command's flags checked by its schema: the parsed config, or the command fails with one line per bad
 * flag, named as the user typed it.
 */
export function parseFlags<S extends z.ZodType>(schema: S, flags: unknown, command: Command): z.output<S> {
  const parsed = schema.safeParse(flags);
  if (parsed.success) return parsed.data;
  return command.error(
    parsed.error.issues
      .map(
        (issue) =>
          `error: --${kebab(String(issue.path[0]))}: ${describeIssue({ ...issue, path: issue.path.slice(1) })}`,
      )
      .join('\n'),
  );
}

export interface CloudAccessHelp {
  credentialsSecret: string;
  organization: string;
  keyId: string;
  alertsUrl: string;
  managementQuota: string;
}

/**
 * The flags of a command that reads the cloud beside the operator (`export`, `plan`): the credentials as a
 * Secret or as flags (secrets preferably from the environment), and the budgets its calls keep to.
 */
export function addCloudAccessOptions(command: Command, help: CloudAccessHelp): Command {
  return command
    .option('--credentials-secret <namespace/name>', help.credentialsSecret)
    .addOption(new Option('--organization <uuid>', help.organization).env('SLUICE_ORGANIZATION_ID'))
    .addOption(new Option('--key-id <id>', help.keyId).env('SLUICE_KEY_ID'))
    .addOption(
      new Option('--key-secret <secret>', 'management API key secret (prefer the environment variable)').env(
        'SLUICE_KEY_SECRET',
      ),
    )
    .addOption(new Option('--management-url <url>', 'management API URL').env('SLUICE_MANAGEMENT_URL'))
    .addOption(new Option('--alerts-url <url>', help.alertsUrl).env('SLUICE_ALERTS_URL'))
    .addOption(
      new Option('--alerts-token <token>', 'alerting API token (prefer the environment variable)').env(
        'SLUICE_ALERTS_TOKEN',
      ),
    )
    .option('--management-quota <n/duration>', help.managementQuota, '10/10s')
    .option('--alerting-quota <n/duration>', 'request budget of the alerting token', '100/60s');
}
