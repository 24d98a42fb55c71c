import type { KubeAccess } from '../kube/kube-config.ts';
import { kubeRequestJson, KubeApiError } from '../kube/kube-http.ts';
import { OperatorFlagFields, runFlags } from './run-flags.ts';
import { kebab } from './flags.ts';

/**
 * The operator's settings that change what `sluice plan` and `sluice export` compute. They are read from the
 * running operator's Deployment: its arguments are what the operator runs with (the chart's values, its
 * `extraArgs`, a kustomize overlay's patches alike), so there is no second copy that could disagree.
 */
export interface OperatorSettings {
  credentialsSecret?: { namespace: string; name: string };
  clusterName?: string;
  takeOverFrom?: string[];
  operatorCredentialsNamespaces?: string[];
  allowedApiHosts?: string[];
}
export type SettingName = keyof OperatorSettings;

export interface ResolvedSettings {
  settings: OperatorSettings;
  /** One line per setting: its value and where it came from (flag, the operator's Deployment, default). */
  report: string[];
}

const DEFAULTS: Record<SettingName, string> = {
  credentialsSecret: 'none',
  clusterName: 'the uid of namespace kube-system, as the operator derives it',
  takeOverFrom: 'none',
  operatorCredentialsNamespaces: 'every namespace',
  allowedApiHosts: "the hosts of the operator's credentials",
};

interface Deployment {
  metadata: { namespace: string; name: string };
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: { containers?: { name: string; args?: string[] }[] };
    };
  };
}

/**
 * `wanted` settings: those given as flags (`given`) win; the others are read from the operator Deployment
 * that watches `namespace` (any, without one); what neither sets keeps the operator's default. Two
 * operators watching the namespace stop the command: which one reconciles it is for the flags to say.
 */
export async function resolveOperatorSettings(
  access: KubeAccess,
  wanted: readonly SettingName[],
  given: OperatorSettings,
  namespace: string | undefined,
): Promise<ResolvedSettings> {
  const missing = wanted.filter((name) => given[name] === undefined);
  const found = missing.length > 0 ? await findOperator(access, namespace) : undefined;
  const settings: OperatorSettings = {};
  const report: string[] = [];
  for (const name of wanted) {
    const value = given[name] ?? found?.settings[name];
    const from =
      given[name] !== undefined
        ? `--${kebab(name)}`
        : value !== undefined
          ? `Deployment ${found!.where}`
          : 'default';
    if (value !== undefined) (settings as Record<string, unknown>)[name] = value;
    report.push(`${kebab(name)}: ${value === undefined ? DEFAULTS[name] : show(value)} (${from})`);
  }
  if (missing.length > 0 && !found) report.push(...notFound(namespace));
  return { settings, report };
}

const show = (value: NonNullable<OperatorSettings[SettingName]>) =>
  Array.isArray(value)
    ? value.join(',')
    : typeof value === 'object'
      ? `${value.namespace}/${value.name}`
      : value;

const notFound = (namespace: string | undefined) => [
  `  (no sluice operator Deployment${namespace ? ` watching namespace ${namespace}` : ''} was found: give the flags your operator runs with)`,
];

/** The flags of `plan` and `export` that stand for operator settings, as their configs hold them. */
interface CommandFlags extends OperatorSettings {
  namespace?: string;
  /** The credentials given as flags (`--organization` …): no credentials Secret is read then. */
  organization?: string;
}

/**
 * The command's `wanted` operator settings, its flags first, then the running operator's; prints where each
 * came from, one line each, under `settings:`.
 */
export async function operatorSettingsFor(
  access: KubeAccess,
  flags: CommandFlags,
  wanted: readonly SettingName[],
  print: (line: string) => void,
): Promise<OperatorSettings> {
  const withKey = flags.organization !== undefined;
  const { settings, report } = await resolveOperatorSettings(
    access,
    withKey ? wanted.filter((name) => name !== 'credentialsSecret') : wanted,
    flags,
    flags.namespace,
  );
  print('settings:');
  if (withKey) print('  credentials: the key given as flags (--organization, --key-id, …)');
  for (const line of report) print(line.startsWith('  ') ? line : `  ${line}`);
  return settings;
}

/** The sluice operator Deployment reconciling `namespace`, and its settings; undefined if there is none. */
async function findOperator(
  access: KubeAccess,
  namespace: string | undefined,
): Promise<{ where: string; settings: OperatorSettings } | undefined> {
  let deployments: Deployment[];
  try {
    ({ items: deployments } = await kubeRequestJson<{ items: Deployment[] }>(access, {
      path: '/apis/apps/v1/deployments',
    }));
  } catch (error) {
    const why = error instanceof KubeApiError ? `HTTP ${error.statusCode}` : (error as Error).message;
    throw new Error(
      `cannot list Deployments to read the operator's settings (${why}): give them as flags, or grant list on deployments`,
      { cause: error },
    );
  }
  const operators = deployments.flatMap((deployment) => {
    const args = operatorArgs(deployment);
    if (!args) return [];
    const where = `${deployment.metadata.namespace}/${deployment.metadata.name}`;
    const flags = parseOperatorArgs(args, where);
    const watches = flags.namespace?.split(',');
    return !namespace || !watches || watches.includes(namespace) ? [{ where, settings: flags }] : [];
  });
  if (operators.length > 1) {
    throw new Error(
      `${operators.length} sluice operators reconcile ${namespace ? `namespace ${namespace}` : 'this cluster'} (Deployments ${operators.map((o) => o.where).join(', ')}): give -n, or the settings as flags`,
    );
  }
  return operators[0];
}

/** The operator container's arguments (`run …`) of a sluice Deployment (chart or kustomize), if it is one. */
function operatorArgs(deployment: Deployment): string[] | undefined {
  const template = deployment.spec?.template;
  if (template?.metadata?.labels?.['app.kubernetes.io/name'] !== 'sluice') return undefined;
  const args = template.spec?.containers?.find((container) => container.args?.[0] === 'run')?.args;
  return args?.slice(1);
}

/** The Deployment's arguments read as `sluice run` reads them: the same parser and schema. */
function parseOperatorArgs(
  args: readonly string[],
  where: string,
): OperatorSettings & { namespace?: string } {
  const command = runFlags()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .action(() => undefined);
  try {
    command.parse([...args], { from: 'user' });
  } catch (error) {
    throw new Error(`the arguments of Deployment ${where} are not sluice run's: ${(error as Error).message}`);
  }
  const parsed = OperatorFlagFields.safeParse(command.opts());
  if (!parsed.success) {
    throw new Error(`the arguments of Deployment ${where} are not valid: ${parsed.error.issues[0]?.message}`);
  }
  const { credentialsSecret, clusterName, takeOverFrom, operatorCredentialsNamespaces, allowedApiHosts } =
    parsed.data;
  return {
    ...(parsed.data.namespace ? { namespace: parsed.data.namespace } : {}),
    ...(credentialsSecret ? { credentialsSecret } : {}),
    ...(clusterName ? { clusterName } : {}),
    ...(takeOverFrom ? { takeOverFrom } : {}),
    ...(operatorCredentialsNamespaces ? { operatorCredentialsNamespaces } : {}),
    ...(allowedApiHosts ? { allowedApiHosts } : {}),
  };
}
