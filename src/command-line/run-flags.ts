import { Command, Option } from 'commander';
import { z } from 'zod';
import {
  DURATION_BOUNDS,
  durationProblem,
  tryParseDurationMs,
  type DurationBounds,
} from '../base/duration.ts';
import { timeScaleProblem } from '../base/timings.ts';
import { parseBindAddress } from '../kube/health-and-metrics-servers.ts';
import { clusterName, commaList, quota, secretRef, takeOverFrom } from '../cloud-access/flags.ts';
import { allowedHostProblem } from '../cloud-access/api-hosts.ts';
import { API_KEY_ROLES } from '../cloud/schemas/api-key.ts';

// `sluice run`'s flags: defined here, beneath the operator, so that `sluice plan` and `sluice export` read a
// running operator's arguments (running-settings.ts) with the very definitions `sluice run` parses them by.

/** A duration flag: refused with the accepted range when outside it, so no timer is ever armed with it. */
const duration = (bounds: DurationBounds) =>
  z.string().transform((text, ctx) => {
    const problem = durationProblem(text, bounds);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    return problem === undefined ? tryParseDurationMs(text)! : z.NEVER;
  });

const bindAddress = z.string().refine(
  (text) => {
    try {
      parseBindAddress(text);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'must be host:port, :port or 0 (off)' },
);

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `sluice run` options, validated once at start-up so a bad flag fails with its name before anything runs. */

/** `--time-scale`: how many times faster than real time the built-in waits run (tests; 1 in production). */
const timeScale = z.union([z.number(), z.string()]).transform((given, ctx) => {
  const factor = typeof given === 'number' ? given : given.trim() === '' ? NaN : Number(given);
  const problem = timeScaleProblem(factor, String(given));
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  return problem === undefined ? factor : z.NEVER;
});

/**
 * `--api-key-roles`: `namespace=role+role` entries, comma-separated; `*=…` for every namespace not listed. An
 * ApiKey naming another role is refused; a namespace no entry covers may give its keys any role.
 */
const apiKeyRoles = commaList((entry) => {
  const [namespace = '', roles = ''] = entry.split('=', 2);
  if (!entry.includes('=') || (namespace !== '*' && !(DNS_LABEL.test(namespace) && namespace.length <= 63)))
    return `"${entry}" is not namespace=role+role (or *=role+role)`;
  const unknown = roles.split('+').filter((role) => !(API_KEY_ROLES as readonly string[]).includes(role));
  return unknown.length > 0
    ? `"${entry}" names ${unknown.map((r) => `"${r}"`).join(', ')}: roles are ${API_KEY_ROLES.join(', ')}`
    : undefined;
}, 'omit the flag to let every namespace give its keys any role').transform((entries) =>
  Object.fromEntries(
    entries.map((entry) => {
      const [namespace, roles] = entry.split('=', 2) as [string, string];
      return [namespace, roles.split('+')];
    }),
  ),
);

/**
 * The flags as given. A duration left out takes its real default divided by `--time-scale`
 * (`OperatorConfig`), so a test compresses the operator's time without restating each flag.
 */
export const OperatorFlagFields = z.object({
  kubeconfig: z.string().optional(),
  clusterName: clusterName.optional(),
  takeOverFrom: takeOverFrom.optional(),
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(,[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
      error: 'must be a namespace or a comma-separated list of namespaces',
    })
    .optional(),
  credentialsSecret: secretRef.optional(),
  operatorCredentialsNamespaces: commaList(
    (name) => (DNS_LABEL.test(name) && name.length <= 63 ? undefined : `"${name}" is no namespace name`),
    'omit the flag to let every namespace use the operator credentials',
  ).optional(),
  plainIdNamespaces: commaList(
    (name) => (DNS_LABEL.test(name) && name.length <= 63 ? undefined : `"${name}" is no namespace name`),
    'omit the flag to allow ids of cloud objects made outside sluice only to namespaces with credentials of their own',
  ).optional(),
  allowedApiHosts: commaList(
    (entry) => allowedHostProblem(entry.toLowerCase()),
    "omit the flag to allow the hosts of the operator's credentials",
  ).optional(),
  apiKeyRoles: apiKeyRoles.optional(),
  concurrency: z.coerce.number().int().min(1).max(64).default(8),
  timeScale: timeScale.default(1),
  syncInterval: duration(DURATION_BOUNDS.syncInterval).optional(),
  pollInterval: duration(DURATION_BOUNDS.pollInterval).optional(),
  leaderElect: z.boolean().default(false),
  leaderElectionNamespace: z.string().default('default'),
  leaderElectionId: z.string().default('sluice-operator'),
  metricsBindAddress: bindAddress.default(':8080'),
  healthProbeBindAddress: bindAddress.default(':8081'),
  managementQuota: quota.optional(),
  alertingQuota: quota.optional(),
  maxCloudWait: duration(DURATION_BOUNDS.maxCloudWait).default(1_000),
  gracefulShutdownTimeout: duration(DURATION_BOUNDS.gracefulShutdownTimeout).default(10_000),
  stallTimeout: duration(DURATION_BOUNDS.stallTimeout).default(120_000),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
});

/** `sluice run` with its flags and no action: the operator adds what it runs. */
export function runFlags(): Command {
  return (
    new Command('run')
      .description('run the operator: reconcile sluice resources in the cluster with the cloud')
      .option(
        '--kubeconfig <path>',
        'kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)',
      )
      .option(
        '--cluster-name <name>',
        "this cluster's name, recorded in the cloud as the owner of what it creates; a rebuild under the same name takes it back (default: derived from the cluster's kube-system uid, never shared)",
      )
      .option(
        '--take-over-from <cluster,cluster>',
        'other clusters whose cloud objects this operator may take over: objects annotated sluice.dev/owner-cluster with one of them, and ids they recorded (default: none)',
      )
      .option('--namespace <name>', 'watch only this namespace, or these (a,b,c) (default: all)')
      .option('--credentials-secret <namespace/name>', 'Secret with the cloud credentials used by default')
      .option(
        '--operator-credentials-namespaces <a,b>',
        'only resources in these namespaces may use --credentials-secret (default: every namespace)',
      )
      .option(
        '--plain-id-namespaces <a,b>',
        "namespaces whose objects may name, with the operator's credentials, cloud objects no sluice object records (made in the console) by id (default: none)",
      )
      .option(
        '--allowed-api-hosts <host,host:port,*.domain>',
        "the API hosts a resource's own credentials Secret may name, over https (http://host for plain http; default: those of --credentials-secret)",
      )
      .option(
        '--api-key-roles <namespace=role+role,*=role>',
        "the roles each namespace's ApiKeys may have (* for every namespace not listed); an ApiKey naming another is refused (default: any role)",
      )
      .option('--concurrency <n>', 'resources reconciled at once, per kind', '8')
      // The duration flags' defaults are the config's: divided by --time-scale when it is set.
      .option(
        '--sync-interval <duration>',
        'how often an in-sync resource is checked for drift (default: 10m)',
      )
      .option(
        '--poll-interval <duration>',
        'first wait while the cloud is still changing (doubles, up to 30s) (default: 2s)',
      )
      .option('--leader-elect', 'run only while holding the leader Lease (for more than one replica)', false)
      .option('--leader-election-namespace <name>', 'namespace of the leader Lease', 'default')
      .option('--leader-election-id <name>', 'name of the leader Lease', 'sluice-operator')
      .option('--metrics-bind-address <addr>', 'where /metrics listens; 0 turns it off', ':8080')
      .option(
        '--health-probe-bind-address <addr>',
        'where /healthz and /readyz listen; 0 turns them off',
        ':8081',
      )
      .option(
        '--management-quota <n/duration>',
        'client-side request budget per management key, or off (default: 10/10s)',
      )
      .option(
        '--alerting-quota <n/duration>',
        'client-side request budget per alerting token, or off (default: 100/60s)',
      )
      .option(
        '--time-scale <factor>',
        'for tests: every built-in wait (quota windows, retries, thresholds, lease) and every duration flag left at its default runs this many times faster',
        '1',
      )
      .option(
        '--graceful-shutdown-timeout <duration>',
        'on SIGTERM, how long reconciles in flight may finish before their cloud calls are aborted',
        '10s',
      )
      .option(
        '--stall-timeout <duration>',
        '/healthz fails once the event loop, a work queue holding work or the leader election has made no progress for this long',
        '2m',
      )
      .option(
        '--max-cloud-wait <duration>',
        'longest a reconcile waits for quota or a Retry-After; longer waits requeue the resource instead',
        '1s',
      )
      .addOption(
        new Option('--log-level <level>', 'log level')
          .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
          .default('info'),
      )
  );
}
