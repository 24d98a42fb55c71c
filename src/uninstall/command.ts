import { Command } from 'commander';

/** `sluice uninstall`: what uninstalling the operator needs so no namespace or Secret waits for it. */
export function uninstallCommand(): Command {
  return new Command('uninstall')
    .description(
      'stop the operator and remove every sluice finalizer (sluice.dev/credentials-in-use on Secrets, sluice.dev/cleanup on sluice objects), so Secrets and namespaces can be deleted without it; nothing in the cloud is deleted',
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)',
    )
    .option('--namespace <a,b>', "only these namespaces (the operator's --namespace) (default: all)")
    .option(
      '--operator-deployment <namespace/name>',
      "the operator's Deployment: scaled to 0 and its pods gone first, so it cannot put a finalizer back",
    )
    .action(
      async (
        flags: { kubeconfig?: string; namespace?: string; operatorDeployment?: string },
        command: Command,
      ) => {
        const operator = flags.operatorDeployment?.split('/');
        if (operator && (operator.length !== 2 || !operator[0] || !operator[1])) {
          return command.error(
            `error: --operator-deployment: expected <namespace>/<name>, got ${flags.operatorDeployment}`,
          );
        }
        // Loaded here so `sluice --help` and the other commands never import what this one needs.
        const [{ loadKubeAccess }, { releaseFinalizers }, { KINDS }] = await Promise.all([
          import('../kube/kube-config.ts'),
          import('./release.ts'),
          import('../kinds/index.ts'),
        ]);
        await releaseFinalizers({
          kubeConfig: await loadKubeAccess(flags.kubeconfig),
          kinds: KINDS,
          namespaces:
            flags.namespace
              ?.split(',')
              .map((n) => n.trim())
              .filter(Boolean) ?? [],
          ...(operator ? { operator: { namespace: operator[0]!, name: operator[1]! } } : {}),
          log: (message) => console.log(message),
        });
      },
    );
}
