import { Command, Option } from 'commander';
import { parseFlags } from '../command-line/flags.ts';
import { OperatorConfig } from './config.ts';

/** `sluice run`: the operator's main process. */
export function runCommand(): Command {
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
        '--allowed-api-hosts <host,host:port,*.domain>',
        "the API hosts a resource's own credentials Secret may name (default: those of --credentials-secret)",
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
        '--max-cloud-wait <duration>',
        'longest a reconcile waits for quota or a Retry-After; longer waits requeue the resource instead',
        '1s',
      )
      .addOption(
        new Option('--log-level <level>', 'log level')
          .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
          .default('info'),
      )
      .action(async (flags: Record<string, unknown>, command: Command) => {
        const config = parseFlags(OperatorConfig, flags, command);
        // Loaded here so `sluice emulator` and `sluice --help` never import the operator.
        const { startOperator } = await import('./run.ts');
        const operator = await startOperator(config);
        // The first signal shuts down in order (the Lease goes last); a second one does not wait for that.
        const stop = () => {
          process.once('SIGINT', () => process.exit(1));
          process.once('SIGTERM', () => process.exit(1));
          void operator.stop();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        const how = await operator.done;
        process.exit(how === 'stopped' ? 0 : 1);
      })
  );
}
