import { Command, Option } from 'commander';
import { addCloudAccessOptions, parseFlags } from '../command-line/flags.ts';
import { PlanConfig } from './config.ts';

/** `sluice plan`: what the operator would send to the cloud for the given manifests, sending nothing. */
export function planCommand(): Command {
  const command = new Command('plan')
    .description(
      'show the cloud calls the operator would make for these manifests (without -f: for every sluice object in the cluster, or in --namespace), reading only; exit status 0: every object unchanged; 2: something to create, take back, update, delete or orphan, or blocked (a change to review); 1: an object that could not be planned (the others are still planned), or the plan itself failed',
    )
    .option('-f, --file <path>', 'manifests: a file, a directory of .yaml/.yml/.json files, or - for stdin')
    .option('--kubeconfig <path>', 'kubeconfig (default: as kubectl finds it)')
    .option(
      '--cluster-name <name>',
      "the operator's --cluster-name: objects recorded under it are taken back (default: the running operator's, read from its Deployment, else derived from the cluster's kube-system uid as the operator does)",
    )
    .option(
      '--take-over-from <cluster,cluster>',
      "the operator's --take-over-from: the other clusters whose objects it may take over (default: the running operator's, else none)",
    )
    .option(
      '-n, --namespace <name>',
      'namespace of manifests that name none (default: default); without -f, plan only this namespace',
    )
    .option(
      '--prune',
      "also plan the deletion of every sluice object of the input's namespaces that the input leaves out, as a GitOps tool that prunes would delete it: whether its cloud object is deleted or stays",
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'),
    );
  return addCloudAccessOptions(command, {
    credentialsSecret:
      "the operator's credentials Secret, for objects without spec.credentialsRef (default: the running operator's, read from its Deployment's arguments with its other settings)",
    organization: 'organization id, instead of --credentials-secret',
    keyId: 'management API key id (a read-only key will do)',
    alertsUrl: 'alerting API URL',
    managementQuota:
      'request budget of the management key; lower it when the operator uses the same key meanwhile',
  }).action(async (flags: Record<string, unknown>, command: Command) => {
    const config = parseFlags(PlanConfig, flags, command);
    // Loaded here so `sluice --help` and the other commands never import the plan's dependencies.
    const { runPlan } = await import('./run.ts');
    process.exitCode = await runPlan(config);
  });
}
