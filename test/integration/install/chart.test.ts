import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP } from '../../../src/kinds/shared/common.ts';
import { KINDS } from '../../../src/kinds/index.ts';
import { GRANT_SCHEMAS } from '../../../src/kinds/index.ts';
import { OperatorConfig } from '../../../src/operator/config.ts';
import {
  chartDir,
  find,
  helmTemplate,
  helmWithValues,
  LOCAL_IMAGE,
  kubectlApply,
  operatorArgs,
  operatorPodTemplate,
  parseManifests,
  type Manifest,
} from '../../../tools/cluster/install.ts';
import { createTestNamespace, type TestNamespace } from '../../harness/namespace.ts';
import { clusterSkipReason, testKubeConfig, testKubeconfigPath } from '../../harness/test-cluster.ts';
import { dryRunOperatorPod, enforceRestricted } from './support.ts';

/** Everything the chart can switch on, with non-default values for the rest. */
const allFeatures = (watchNamespace: string, argocdNamespace: string) => ({
  image: { repository: 'registry.example.com/sluice', digest: `sha256:${'a'.repeat(64)}` },
  imagePullSecrets: [{ name: 'registry' }],
  replicas: 3,
  watchNamespace,
  credentials: {
    organizationId: 'org',
    keyId: 'key',
    keySecret: 'not-a-real-secret',
    managementUrl: 'https://api.example.com',
    alertsUrl: 'https://alerts.example.com',
    alertsToken: 'not-a-real-token',
  },
  operator: {
    concurrency: 12,
    syncInterval: '5m',
    pollInterval: '1s',
    logLevel: 'debug',
    operatorCredentialsNamespaces: ['team-a', 'team-b'],
    allowedApiHosts: ['api.example.com', '*.example.net:8443'],
    extraArgs: ['--alerting-quota=off'],
  },
  serviceAccount: { name: 'sluice-custom', annotations: { 'example.com/role': 'operator' } },
  metrics: { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
  monitoring: {
    dashboard: { enabled: true, labels: { team: 'data' } },
    prometheusRules: { enabled: true, labels: { release: 'prometheus' }, notReadySeconds: 600 },
  },
  podDisruptionBudget: { enabled: true },
  networkPolicy: {
    enabled: true,
    metricsFrom: [{ namespaceSelector: { matchLabels: { monitoring: 'true' } } }],
  },
  argocd: { healthChecks: true, namespace: argocdNamespace },
  podAnnotations: { 'example.com/scrape': 'true' },
  priorityClassName: '',
});

const resourcesOf = (role: Manifest | undefined) =>
  ((role?.rules as { apiGroups: string[]; resources: string[] }[]) ?? []).flatMap((r) =>
    r.resources.map((res) => `${r.apiGroups[0] || 'core'}/${res}`),
  );

describe('helm chart charts/sluice (no cluster needed)', () => {
  it('passes helm lint --strict with only an image set and with all-features values', () => {
    expect(helmWithValues(['lint', '--strict', chartDir], { image: LOCAL_IMAGE })).toMatch(
      /1 chart\(s\) linted, 0 chart\(s\) failed/,
    );
    expect(helmWithValues(['lint', '--strict', chartDir], allFeatures('data', 'argocd'))).toMatch(
      /0 chart\(s\) failed/,
    );
  });

  it('takes a numeric image tag given with --set image.tag=1 as the tag "1"', () => {
    const text = helmWithValues(
      ['template', 'sluice', chartDir, '--namespace', 'ops', '--set', 'image.tag=1'],
      { image: { repository: 'registry.example.com/sluice' } },
    );
    const container = operatorPodTemplate(parseManifests(text)).spec.containers[0] as { image?: string };
    expect(container.image).toBe('registry.example.com/sluice:1');
  });

  it.each([
    ['an unknown key', { bogus: true }, /additional properties 'bogus' not allowed/],
    ['a mistyped replica count', { replicas: 'two' }, /replicas.*want integer/],
    [
      'an unknown nested key',
      { operator: { concurency: 2 } },
      /additional properties 'concurency' not allowed/,
    ],
    ['a bad duration', { operator: { syncInterval: '10 minutes' } }, /syncInterval/],
    ['a bad log level', { operator: { logLevel: 'verbose' } }, /logLevel/],
    ['a namespace that is no DNS label', { watchNamespace: 'Data_Team' }, /watchNamespace/],
    [
      'an allowed API host given as a URL with a path',
      { operator: { allowedApiHosts: ['https://api.example.com/v1'] } },
      /allowedApiHosts/,
    ],
    [
      'a credentials namespace that is no DNS label',
      { operator: { operatorCredentialsNamespaces: ['Team_A'] } },
      /operatorCredentialsNamespaces/,
    ],
    [
      'an ApiKey role that does not exist',
      { operator: { apiKeyRoles: { 'team-a': ['owner'] } } },
      /apiKeyRoles/,
    ],
  ])('rejects %s through values.schema.json', (_what, values, message) => {
    expect(() => helmTemplate({ namespace: 'sluice-system', values })).toThrow(message);
  });

  it.each([
    [
      'without an image',
      { image: { repository: '', tag: '' } },
      /image.repository is required: no sluice image is published/,
    ],
    [
      'without a tag',
      { image: { repository: 'registry.example.com/sluice', tag: '' } },
      /image.tag \(or image.digest\) is required/,
    ],
    [
      'a disruption budget that keeps the only replica (every node drain would block)',
      { podDisruptionBudget: { enabled: true } },
      /podDisruptionBudget.minAvailable \(1\) must leave one of the 1 replicas free to evict/,
    ],
    [
      'a disruption budget as a percentage that keeps every replica',
      { replicas: 2, podDisruptionBudget: { enabled: true, minAvailable: '60%' } },
      /podDisruptionBudget.minAvailable \(60%\) must leave one of the 2 replicas/,
    ],
  ])('refuses to render %s, naming the value to set', (_what, values, message) => {
    expect(() => helmTemplate({ namespace: 'sluice-system', values })).toThrow(message);
  });

  it('asks for the rest of the credentials when only a key secret is given, and never prints it', () => {
    const attempt = () =>
      helmTemplate({
        namespace: 'sluice-system',
        values: { credentials: { keySecret: 'very-secret-value' } },
      });
    expect(attempt).toThrow(/credentials.organizationId is required/);
    expect(attempt).not.toThrow(/very-secret-value/);
  });

  it('grants the sluice kinds (with status and finalizers), reading grants, Secrets, Events and Leases, and nothing else', () => {
    const objects = parseManifests(helmTemplate({ namespace: 'sluice-system' }));
    const plurals = KINDS.map((k) => k.plural);
    const granted = [
      ...resourcesOf(find(objects, 'ClusterRole')),
      ...resourcesOf(find(objects, 'Role', 'sluice-leader-election')),
    ];
    expect(granted.sort()).toEqual(
      [
        ...plurals.flatMap((p) => [`${GROUP}/${p}`, `${GROUP}/${p}/status`, `${GROUP}/${p}/finalizers`]),
        ...GRANT_SCHEMAS.map((g) => `${GROUP}/${g.plural}`),
        'core/secrets',
        'core/events',
        'coordination.k8s.io/leases',
      ].sort(),
    );
    const verbs = (find(objects, 'ClusterRole')!.rules as { verbs: string[] }[]).flatMap((r) => r.verbs);
    expect(verbs).not.toContain('*');
    expect(verbs).not.toContain('delete');
    // Grants are only read: never written, so no tenant's grant is ever the operator's doing.
    const grantRules = (
      find(objects, 'ClusterRole')!.rules as { resources: string[]; verbs: string[] }[]
    ).filter((r) => r.resources.some((resource) => GRANT_SCHEMAS.some((g) => g.plural === resource)));
    expect(grantRules.map((r) => r.verbs)).toEqual([['get', 'list', 'watch']]);
  });

  it('namespaced mode with a clusterName needs Roles only: no ClusterRole or ClusterRoleBinding at all', () => {
    const objects = parseManifests(
      helmTemplate({
        namespace: 'sluice-system',
        values: {
          watchNamespace: 'data',
          clusterName: 'data-eu',
          takeOverFrom: ['prod-eu', 'prod-us'],
          credentials: { existingSecret: 'cloud' },
        },
      }),
    );
    const clusterWide = (rendered: typeof objects) =>
      rendered.filter((o) => o.kind.startsWith('Cluster') && o.kind !== 'CustomResourceDefinition');
    expect(clusterWide(objects)).toEqual([]);
    expect(operatorArgs(objects)).toContain('--cluster-name=data-eu');
    expect(operatorArgs(objects)).toContain('--take-over-from=prod-eu,prod-us');
    // Without one, its one cluster-wide right reads namespace kube-system, whose uid names the cluster.
    const derived = parseManifests(
      helmTemplate({
        namespace: 'sluice-system',
        values: { watchNamespace: 'data', credentials: { existingSecret: 'cloud' } },
      }),
    );
    expect(clusterWide(derived).map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      'ClusterRole sluice-cluster-identity',
      'ClusterRoleBinding sluice-cluster-identity',
    ]);
    expect(find(derived, 'ClusterRole', 'sluice-cluster-identity')!.rules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['kube-system'], verbs: ['get'] },
    ]);
    expect(find(objects, 'Role', 'sluice')!.metadata.namespace).toBe('data');
    // The credentials Secret stays in the release namespace: exactly that one Secret may be read there, and
    // Events about it recorded.
    expect(find(objects, 'Role', 'sluice-credentials')!.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['cloud'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    ]);
    expect(operatorArgs(objects)).toEqual(
      expect.arrayContaining(['--namespace=data', '--credentials-secret=sluice-system/cloud']),
    );
  });

  it('elects a leader whatever the replica count, with the Lease rights, and never overlaps two pods in a rollout', () => {
    for (const replicas of [0, 1, 3]) {
      const objects = parseManifests(helmTemplate({ namespace: 'ops', values: { replicas } }));
      expect(operatorArgs(objects)).toEqual(
        expect.arrayContaining([
          '--leader-elect',
          '--leader-election-namespace=ops',
          '--leader-election-id=sluice',
        ]),
      );
      expect(resourcesOf(find(objects, 'Role', 'sluice-leader-election'))).toEqual([
        'coordination.k8s.io/leases',
      ]);
      expect(find(objects, 'RoleBinding', 'sluice-leader-election')).toBeDefined();
      expect((find(objects, 'Deployment')!.spec as { strategy: unknown }).strategy).toEqual({
        type: 'Recreate',
      });
    }
  });

  it('passes the credentials namespaces, plain-id namespaces and allowed API hosts as flags, and none by default', () => {
    const limited = parseManifests(
      helmTemplate({
        namespace: 'ops',
        values: {
          operator: {
            operatorCredentialsNamespaces: ['team-a', 'team-b'],
            plainIdNamespaces: ['platform'],
            allowedApiHosts: ['api.example.com', '*.example.net:8443'],
          },
        },
      }),
    );
    expect(operatorArgs(limited)).toEqual(
      expect.arrayContaining([
        '--operator-credentials-namespaces=team-a,team-b',
        '--plain-id-namespaces=platform',
        '--allowed-api-hosts=api.example.com,*.example.net:8443',
      ]),
    );
    const open = operatorArgs(parseManifests(helmTemplate({ namespace: 'ops', values: {} })));
    expect(
      open.filter((arg) =>
        /credentials-namespaces|plain-id-namespaces|allowed-api-hosts|api-key-roles/.test(arg),
      ),
    ).toEqual([]);
  });

  it('passes the ApiKey role allow-list as the flag the operator parses', () => {
    const args = operatorArgs(
      parseManifests(
        helmTemplate({
          namespace: 'ops',
          values: {
            operator: {
              apiKeyRoles: { 'team-a': ['developer', 'query_endpoints'], '*': ['query_endpoints'] },
            },
          },
        }),
      ),
    );
    const flag = args.find((arg) => arg.startsWith('--api-key-roles='))!;
    expect(OperatorConfig.parse({ apiKeyRoles: flag.slice('--api-key-roles='.length) }).apiKeyRoles).toEqual({
      '*': ['query_endpoints'],
      'team-a': ['developer', 'query_endpoints'],
    });
  });

  it('ships every CRD as a template kept on uninstall, identical to crds/, and none with crds.enabled=false', () => {
    const objects = parseManifests(helmTemplate({ namespace: 'sluice-system' }));
    for (const kind of [...KINDS, ...GRANT_SCHEMAS]) {
      const name = `${kind.plural}.${GROUP}`;
      const crd = find(objects, 'CustomResourceDefinition', name)!;
      expect(crd.metadata.annotations).toEqual({
        'helm.sh/resource-policy': 'keep',
        'argocd.argoproj.io/sync-options': 'Delete=false,ServerSideApply=true',
      });
      const committed = parseManifests(
        readFileSync(join(chartDir, '..', '..', 'crds', `${name}.yaml`), 'utf8'),
      )[0]!;
      expect(crd.spec).toEqual(committed.spec);
    }
    const without = parseManifests(
      helmTemplate({ namespace: 'sluice-system', values: { crds: { enabled: false } } }),
    );
    expect(find(without, 'CustomResourceDefinition')).toBeUndefined();
  });

  it('renders the Grafana dashboard ConfigMap and the PrometheusRule only when enabled', () => {
    const monitoring = (objects: Manifest[]) =>
      objects.filter(
        (o) =>
          o.kind === 'PrometheusRule' ||
          (o.metadata as { labels?: Record<string, string> }).labels?.grafana_dashboard === '1',
      );
    expect(monitoring(parseManifests(helmTemplate({ namespace: 'ops' })))).toEqual([]);
    const enabled = parseManifests(
      helmTemplate({
        namespace: 'ops',
        values: {
          monitoring: {
            dashboard: { enabled: true, namespace: 'grafana' },
            prometheusRules: { enabled: true, warningEventsPerMinute: 2 },
          },
        },
      }),
    );
    const [dashboard, rule] = monitoring(enabled).sort((a, b) => a.kind.localeCompare(b.kind));
    expect(dashboard).toMatchObject({ kind: 'ConfigMap', metadata: { namespace: 'grafana' } });
    const json = JSON.parse((dashboard!.data as Record<string, string>)['sluice.json']!) as { title: string };
    expect(json.title).toBe('sluice');
    expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', metadata: { namespace: 'ops' } });
    const rules = (rule!.spec as { groups: { rules: { alert: string; expr: string }[] }[] }).groups[0]!.rules;
    expect(rules.map((r) => r.alert)).toEqual([
      'SluiceCloudRateLimited',
      'SluiceCloudWritesFailing',
      'SluiceDriftCycleLongerThanInterval',
      'SluiceObjectsNotReady',
      'SluiceWarningEvents',
    ]);
    expect(rules[4]!.expr).toMatch(/ \* 60 > 2$/);
    for (const part of ['dashboard', 'prometheusRules']) {
      const only = parseManifests(
        helmTemplate({ namespace: 'ops', values: { monitoring: { [part]: { enabled: true } } } }),
      );
      expect(monitoring(only)).toHaveLength(1);
    }
  });

  it('creates the credentials Secret from values, or uses existingSecret and creates none', () => {
    const created = parseManifests(helmTemplate({ namespace: 'ops', values: allFeatures('ops', 'ops') }));
    const secret = find(created, 'Secret')!;
    expect(Object.keys(secret.data as object).sort()).toEqual(
      ['alertsToken', 'alertsUrl', 'keyId', 'keySecret', 'managementUrl', 'organizationId'].sort(),
    );
    expect(operatorArgs(created)).toContain(`--credentials-secret=ops/${secret.metadata.name}`);
    const existing = parseManifests(
      helmTemplate({
        namespace: 'ops',
        values: { credentials: { existingSecret: 'mine', keySecret: 'ignored' } },
      }),
    );
    expect(find(existing, 'Secret')).toBeUndefined();
    expect(operatorArgs(existing)).toContain('--credentials-secret=ops/mine');
  });

  it('runs the operator under the restricted profile with probes on the probe port and resources set', () => {
    const pod = operatorPodTemplate(parseManifests(helmTemplate({ namespace: 'ops' }))).spec as unknown as {
      securityContext: Record<string, unknown>;
      containers: Record<string, { [key: string]: unknown }>[];
    };
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const container = pod.containers[0]!;
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'probes' } });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 'probes' } });
    expect(container.resources).toMatchObject({ requests: { cpu: '50m', memory: '192Mi' } });
  });
});

describe.skipIf(clusterSkipReason())('helm chart on the real apiserver', () => {
  let release: TestNamespace;
  let watched: TestNamespace;
  let kubeconfig: string;

  beforeAll(async () => {
    kubeconfig = testKubeconfigPath()!;
    release = await createTestNamespace('chart');
    watched = await createTestNamespace('chart-watched');
    await enforceRestricted(testKubeConfig(), release.name);
    for (const crd of ['servicemonitor-crd.yaml', 'prometheusrule-crd.yaml']) {
      kubectlApply(kubeconfig, readFileSync(join(import.meta.dirname, 'fixtures', crd), 'utf8'));
    }
  });
  afterAll(async () => {
    await release?.delete();
    await watched?.delete();
  });

  it('accepts the default rendering (server-side dry-run of every object)', () => {
    const objects = parseManifests(helmTemplate({ release: release.name, namespace: release.name }));
    const lines = kubectlApply(kubeconfig, objects, { dryRun: true }).trim().split('\n');
    expect(lines).toHaveLength(objects.length);
    for (const line of lines) expect(line).toMatch(/ serverside-applied \(server dry run\)$/);
    const kinds = lines.map((l) => l.split(/[./]/)[0]);
    expect([...new Set(kinds)].sort()).toEqual(
      [
        'clusterrole',
        'clusterrolebinding',
        'customresourcedefinition',
        'deployment',
        // The pre-delete hook that runs `sluice uninstall`.
        'job',
        'role',
        'rolebinding',
        'service',
        'serviceaccount',
        'validatingadmissionpolicy',
        'validatingadmissionpolicybinding',
      ].sort(),
    );
    expect(kinds.filter((k) => k === 'customresourcedefinition')).toHaveLength(
      KINDS.length + GRANT_SCHEMAS.length,
    );
  });

  it('accepts the all-features rendering: namespaced RBAC, Secret, ServiceMonitor, PDB, NetworkPolicy, Argo CD, dashboard, alerts', () => {
    const text = helmTemplate({
      release: release.name,
      namespace: release.name,
      values: allFeatures(watched.name, release.name),
    });
    const objects = parseManifests(text);
    const kinds = new Set(objects.map((o) => o.kind));
    for (const kind of [
      'Role',
      'RoleBinding',
      'Secret',
      'ServiceMonitor',
      'PrometheusRule',
      'PodDisruptionBudget',
      'NetworkPolicy',
      'ConfigMap',
    ])
      expect(kinds).toContain(kind);
    expect(kubectlApply(kubeconfig, objects, { dryRun: true })).toMatch(
      /configmap\/argocd-cm serverside-applied \(server dry run\)/,
    );
    // The rendered text holds the Secret's base64 data and nothing else of it: no comment repeats a value.
    expect(text).not.toContain('not-a-real-secret');
  });

  it('passes the restricted Pod Security profile as enforced by the apiserver', () => {
    for (const values of [{}, allFeatures(watched.name, release.name)]) {
      const objects = parseManifests(helmTemplate({ namespace: release.name, values }));
      expect(dryRunOperatorPod(kubeconfig, objects, release.name)).toMatch(/pod\/\S+ serverside-applied/);
    }
  });

  it('and the check is real: a pod without the hardening is refused in the same namespace', () => {
    const objects = parseManifests(helmTemplate({ namespace: release.name }));
    const pod = operatorPodTemplate(objects).spec as unknown as {
      securityContext: unknown;
      containers: { securityContext?: unknown }[];
    };
    delete pod.containers[0]!.securityContext;
    expect(() => dryRunOperatorPod(kubeconfig, objects, release.name)).toThrow(
      /violates PodSecurity "restricted/,
    );
  });
});
