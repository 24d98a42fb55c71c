import { API_VERSION } from '../kinds/shared/common.ts';
import type { KindDescriptor } from '../kinds/shared/descriptor.ts';
import { pipeKind as pipeSchema } from '../kinds/pipe/kind.ts';
import { reversePrivateEndpointKind as reversePrivateEndpointSchema } from '../kinds/reverse-private-endpoint/kind.ts';
import { progressConditions, readyReasonsNeedingAPerson } from '../managed/index.ts';
import { kindNamed } from '../kinds/index.ts';

/** Argo CD's health statuses. */
export type HealthStatus = 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';

interface Condition {
  type: 'Ready' | 'Synced' | 'Reconciling' | 'Stalled';
  status: 'True' | 'False';
  reason: string;
  message?: string;
  /** The generation the condition was set for; omitted, the fixture does not say. */
  observedGeneration?: number;
  /** A Synced failure that fails the same way until someone acts (the operator then writes Stalled). */
  needsAPerson?: boolean;
}

/** One state of a sluice resource and the health Argo CD must show for it. */
export interface HealthCase {
  /** File name under testdata/ (without .yaml). */
  name: string;
  /** What the case shows, written into the fixture as a comment. */
  about: string;
  expected: { status: HealthStatus; message: string };
  /** Only for the kinds this holds for (default: every kind). */
  appliesTo?: (kind: KindDescriptor) => boolean;
  object: (kind: string) => Record<string, unknown>;
}

// Which kinds a case applies to follows from what the kind declares where the runtime decides it (a kind
// with references can wait for one, one with `exclusiveOn` can meet a Conflict); the reasons only one
// controller raises name that kind's schema.
const hasReferences = (kind: KindDescriptor) => (kind.references?.length ?? 0) > 0;
const isExclusive = (kind: KindDescriptor) => kind.exclusiveOn !== undefined;
const only =
  (schema: KindDescriptor) =>
  (kind: KindDescriptor): boolean =>
    kind.kind === schema.kind;

const T0 = '2026-01-01T00:00:00Z';
const ALLOWED_DRIFT = '1 field differs from the spec, as the field policy allows: name';
const ok: Condition = { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' };

function resource(
  kind: string,
  opts: {
    conditions?: Condition[];
    generation?: number;
    observedGeneration?: number;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  } = {},
): Record<string, unknown> {
  const generation = opts.generation ?? 1;
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: {
      name: 'example',
      namespace: 'data',
      generation,
      creationTimestamp: T0,
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
      ...(opts.deletionTimestamp
        ? { deletionTimestamp: opts.deletionTimestamp, finalizers: ['sluice.dev/finalizer'] }
        : {}),
    },
    spec: {},
    ...(opts.conditions
      ? {
          status: {
            id: 'c0ffee00-0000-4000-8000-000000000001',
            observedGeneration: opts.observedGeneration ?? generation,
            conditions: withProgress(kind, opts.conditions, generation).map((c) => ({
              ...c,
              lastTransitionTime: T0,
            })),
          },
        }
      : // What the apiserver serves before sluice writes a status: the CRD's default.
        { status: { observedGeneration: 0 } }),
  };
}

/** The conditions as the operator writes them: Reconciling and Stalled follow from Ready and Synced. */
function withProgress(kind: string, conditions: Condition[], generation: number): Condition[] {
  const stated = conditions.map((c) => ({ ...c, lastTransitionTime: T0 }));
  const needsAPerson = conditions.some((c) => c.type === 'Synced' && c.needsAPerson === true);
  const readyNeedsAPerson = readyReasonsNeedingAPerson(kindNamed(kind)?.reasons);
  const progress = progressConditions(stated, generation, needsAPerson, readyNeedsAPerson);
  return [...conditions.map(({ needsAPerson: _, ...c }) => c), ...progress];
}

const ready = (message?: string): Condition => ({
  type: 'Ready',
  status: 'True',
  reason: 'Available',
  ...(message ? { message } : {}),
});
const notReady = (reason: string, message: string): Condition => ({
  type: 'Ready',
  status: 'False',
  reason,
  message,
});
/** Synced=False for a failure only a person ends (the default), or one a retry may end. */
const failedSync = (reason: string, message: string, needsAPerson = true): Condition => ({
  type: 'Synced',
  status: 'False',
  reason,
  message,
  needsAPerson,
});

/** Every state the operator can leave a resource in; the same for every kind unless `kinds` says otherwise. */
export const HEALTH_CASES: HealthCase[] = [
  {
    name: 'ready',
    about: 'the cloud matches the spec and the resource is usable',
    expected: { status: 'Healthy', message: 'Available' },
    object: (kind) => resource(kind, { conditions: [ok, ready()] }),
  },
  {
    name: 'new',
    about:
      'just applied: the operator has not written a status yet (the CRD defaults observedGeneration to 0)',
    expected: { status: 'Progressing', message: 'Waiting for sluice to reconcile' },
    object: (kind) => resource(kind),
  },
  {
    name: 'creating',
    about: 'created in the cloud, which is still provisioning it',
    expected: { status: 'Progressing', message: 'being created' },
    object: (kind) => resource(kind, { conditions: [ok, notReady('Creating', 'being created')] }),
  },
  {
    name: 'updating',
    about: 'a spec change was sent; the cloud is applying it',
    expected: { status: 'Progressing', message: 'applying name' },
    object: (kind) =>
      resource(kind, { generation: 2, conditions: [ok, notReady('Updating', 'applying name')] }),
  },
  {
    name: 'unavailable',
    about: 'the cloud is moving the resource to the desired state (starting, stopping, resuming)',
    expected: { status: 'Progressing', message: 'state is starting' },
    object: (kind) => resource(kind, { conditions: [ok, notReady('Unavailable', 'state is starting')] }),
  },
  {
    name: 'waiting-for-reference',
    about: 'a referenced sluice resource is not Ready yet; sluice waits for it (no sync wave needed)',
    expected: { status: 'Progressing', message: 'DatabaseService analytics is not Ready' },
    appliesTo: hasReferences,
    object: (kind) =>
      resource(kind, {
        conditions: [ok, notReady('WaitingForReference', 'DatabaseService analytics is not Ready')],
      }),
  },
  {
    name: 'reference-not-found',
    about: 'a referenced sluice resource has not existed for a minute: most likely a typo in the reference',
    expected: { status: 'Degraded', message: 'DatabaseService analytcs does not exist' },
    appliesTo: hasReferences,
    object: (kind) =>
      resource(kind, {
        conditions: [
          failedSync('ReferenceNotFound', 'DatabaseService analytcs does not exist'),
          notReady('ReferenceNotFound', 'DatabaseService analytcs does not exist'),
        ],
      }),
  },
  {
    name: 'pending-acceptance',
    about: 'the endpoint waits for the owner of the target service to accept the connection',
    expected: { status: 'Progressing', message: 'waiting for the connection to be accepted' },
    appliesTo: only(reversePrivateEndpointSchema),
    object: (kind) =>
      resource(kind, {
        conditions: [ok, notReady('PendingAcceptance', 'waiting for the connection to be accepted')],
      }),
  },
  {
    name: 'generation-not-observed',
    about: 'the spec changed and the operator has not acted on it yet: the old Ready says nothing',
    expected: { status: 'Progressing', message: 'Waiting for sluice to act on generation 3' },
    object: (kind) => resource(kind, { generation: 3, observedGeneration: 2, conditions: [ok, ready()] }),
  },
  {
    name: 'cloud-failed',
    about: 'the cloud reports the resource failed',
    expected: { status: 'Degraded', message: 'the cloud reports state failed' },
    object: (kind) =>
      resource(kind, { conditions: [ok, notReady('CloudFailed', 'the cloud reports state failed')] }),
  },
  {
    name: 'spec-rejected',
    about: 'the cloud API refused the spec (4xx); the last Ready is stale',
    expected: { status: 'Degraded', message: '400 BAD_REQUEST: region is not available' },
    object: (kind) =>
      resource(kind, {
        generation: 2,
        conditions: [failedSync('CloudRequestRejected', '400 BAD_REQUEST: region is not available'), ready()],
      }),
  },
  {
    name: 'credentials-missing',
    about: 'the credentials Secret or one of its keys is missing',
    expected: { status: 'Degraded', message: 'Secret data/cloud not found' },
    object: (kind) =>
      resource(kind, { conditions: [failedSync('CredentialsMissing', 'Secret data/cloud not found')] }),
  },
  {
    name: 'secret-missing',
    about: 'a Secret the spec references does not exist (or lacks the key)',
    expected: { status: 'Degraded', message: 'Secret data/kafka-user not found' },
    object: (kind) =>
      resource(kind, { conditions: [failedSync('SecretMissing', 'Secret data/kafka-user not found')] }),
  },
  {
    name: 'secret-conflict',
    about:
      'the connection Secret named in the spec belongs to another resource; sluice will not write into it',
    expected: { status: 'Degraded', message: 'Secret data/shared is controlled by DatabaseService other' },
    object: (kind) =>
      resource(kind, {
        conditions: [
          failedSync('SecretConflict', 'Secret data/shared is controlled by DatabaseService other'),
        ],
      }),
  },
  {
    name: 'cannot-rotate',
    about: 'a referenced Secret changed, but the cloud cannot change that connection string in place',
    expected: { status: 'Degraded', message: 'source.kafka: restore the Secret or create a new Pipe' },
    appliesTo: only(pipeSchema),
    object: (kind) =>
      resource(kind, {
        conditions: [
          failedSync('CannotRotate', 'source.kafka: restore the Secret or create a new Pipe'),
          ready(),
        ],
      }),
  },
  ...(
    [
      ['Rejected', 'the connection was rejected on your side'],
      ['Expired', 'the connection was not accepted in time and expired'],
      ['Failed', 'the cloud reports the endpoint Failed'],
    ] as const
  ).map(([reason, message]): HealthCase => ({
    name: `endpoint-${reason.toLowerCase()}`,
    about: `the cloud reports the endpoint ${reason}: only a new endpoint helps`,
    expected: { status: 'Degraded', message },
    appliesTo: only(reversePrivateEndpointSchema),
    object: (kind) => resource(kind, { conditions: [ok, notReady(reason, message)] }),
  })),
  ...(
    [
      ['AmbiguousAdoption', 'set the annotation sluice.dev/external-id to the one to adopt'],
      ['CannotUpdate', 'endpoint c0ffee00 differs in description; create a new ReversePrivateEndpoint'],
    ] as const
  ).map(([reason, message]): HealthCase => ({
    name: reason.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase(),
    about: 'the user must choose or replace the endpoint; retrying will not help',
    expected: { status: 'Degraded', message },
    appliesTo: only(reversePrivateEndpointSchema),
    object: (kind) => resource(kind, { conditions: [failedSync(reason, message)] }),
  })),
  {
    name: 'invalid-reference',
    about: 'a referenced ReversePrivateEndpoint belongs to another service than the pipe',
    expected: { status: 'Degraded', message: 'ReversePrivateEndpoint msk belongs to service other' },
    appliesTo: only(pipeSchema),
    object: (kind) =>
      resource(kind, {
        conditions: [
          failedSync('InvalidReference', 'ReversePrivateEndpoint msk belongs to service other'),
          notReady('Creating', 'being created'),
        ],
      }),
  },
  {
    name: 'conflict',
    about: 'another object of the kind already holds what there is one of (one query endpoint per service)',
    expected: {
      status: 'Degraded',
      message: 'QueryEndpoint orders already manages this for the same service',
    },
    appliesTo: isExclusive,
    object: (kind) =>
      resource(kind, {
        conditions: [
          ok,
          notReady('Conflict', 'QueryEndpoint orders already manages this for the same service'),
        ],
      }),
  },
  {
    name: 'already-managed',
    about: 'the adopted id is one another resource of the kind already manages',
    expected: { status: 'Degraded', message: 'DatabaseService team-a/orders already manages c0ffee00' },
    object: (kind) =>
      resource(kind, {
        conditions: [
          ok,
          notReady('AlreadyManaged', 'DatabaseService team-a/orders already manages c0ffee00'),
        ],
      }),
  },
  {
    name: 'observe-only-matching',
    about: 'managementPolicy Observe and the cloud matches the spec',
    expected: { status: 'Healthy', message: 'observed only: the cloud matches the spec' },
    object: (kind) =>
      resource(kind, {
        conditions: [
          ok,
          {
            type: 'Ready',
            status: 'True',
            reason: 'ObserveOnly',
            message: 'observed only: the cloud matches the spec',
          },
        ],
      }),
  },
  {
    name: 'observe-only-differs',
    about: 'managementPolicy Observe and the cloud differs: the calls Full would send are pending',
    expected: {
      status: 'Progressing',
      message:
        'observed only: the cloud differs in name; managementPolicy Full would send PATCH /v1/organizations/o/services/c0ffee00 (name)',
    },
    object: (kind) =>
      resource(kind, {
        conditions: [
          ok,
          notReady(
            'ObserveOnly',
            'observed only: the cloud differs in name; managementPolicy Full would send PATCH /v1/organizations/o/services/c0ffee00 (name)',
          ),
        ],
      }),
  },
  {
    name: 'nothing-to-observe',
    about: 'managementPolicy Observe without an id to observe: Observe never creates',
    expected: { status: 'Degraded', message: 'managementPolicy Observe never creates' },
    object: (kind) =>
      resource(kind, {
        conditions: [ok, notReady('NothingToObserve', 'managementPolicy Observe never creates')],
      }),
  },
  {
    name: 'external-missing',
    about: 'the cloud resource was deleted behind sluice, which makes it anew',
    expected: { status: 'Progressing', message: 'c0ffee00 is gone' },
    object: (kind) => resource(kind, { conditions: [ok, notReady('ExternalMissing', 'c0ffee00 is gone')] }),
  },
  {
    name: 'drift-reported',
    about: 'sluice.dev/drift: report and the cloud differs from the spec: a difference the policy allows',
    expected: { status: 'Healthy', message: ALLOWED_DRIFT },
    object: (kind) =>
      resource(kind, {
        annotations: { 'sluice.dev/drift': 'report' },
        conditions: [ok, ready(ALLOWED_DRIFT)],
      }),
  },
  {
    name: 'drift-allowed',
    about: 'spec.fieldPolicy leaves a field to the cloud, or only reports it, and the cloud differs there',
    expected: { status: 'Healthy', message: ALLOWED_DRIFT },
    object: (kind) => resource(kind, { conditions: [ok, ready(ALLOWED_DRIFT)] }),
  },
  {
    name: 'drift-reported-earlier',
    about: 'a status written by an earlier sluice, whose sluice.dev/drift: report made Ready False',
    expected: { status: 'Degraded', message: 'differs from the cloud in: name' },
    object: (kind) =>
      resource(kind, {
        annotations: { 'sluice.dev/drift': 'report' },
        conditions: [ok, notReady('Drifted', 'differs from the cloud in: name')],
      }),
  },
  {
    name: 'retrying',
    about: 'a transient failure (the cloud answered 503) before the resource was ever Ready',
    expected: { status: 'Progressing', message: 'Retrying: 503 Service Unavailable' },
    object: (kind) =>
      resource(kind, {
        conditions: [
          failedSync('CloudApiError', '503 Service Unavailable', false),
          notReady('Creating', 'being created'),
        ],
      }),
  },
  {
    name: 'retrying-while-ready',
    about: 'a drift check failed transiently; the resource itself is still Ready',
    expected: { status: 'Healthy', message: 'Available' },
    object: (kind) =>
      resource(kind, {
        conditions: [failedSync('CloudApiError', '503 Service Unavailable', false), ready()],
      }),
  },
  {
    name: 'update-failed',
    about: 'the cloud answered 500 to the update of a new spec: not Ready, retried',
    expected: { status: 'Progressing', message: 'Retrying: PATCH failed: 500 INTERNAL' },
    object: (kind) =>
      resource(kind, {
        generation: 2,
        conditions: [
          failedSync('CloudApiError', 'PATCH failed: 500 INTERNAL', false),
          notReady(
            'SyncFailed',
            'the last attempt to make the cloud match the spec failed: PATCH failed: 500 INTERNAL',
          ),
        ],
      }),
  },
  {
    name: 'ready-for-older-generation',
    about:
      'Ready=True was said of generation 1 and a failure followed the edit (a status of an older sluice)',
    expected: { status: 'Progressing', message: 'Waiting for sluice to apply generation 2' },
    object: (kind) =>
      resource(kind, {
        generation: 2,
        conditions: [
          { ...failedSync('CloudApiError', 'PATCH failed: 500 INTERNAL', false), observedGeneration: 2 },
          { ...ready(), observedGeneration: 1 },
        ],
      }),
  },
  {
    name: 'paused',
    about: 'sluice.dev/paused: "true"; observedGeneration stays at the last generation acted on',
    expected: { status: 'Suspended', message: 'reconciling is paused by the sluice.dev/paused annotation' },
    object: (kind) =>
      resource(kind, {
        generation: 4,
        observedGeneration: 3,
        annotations: { 'sluice.dev/paused': 'true' },
        conditions: [
          failedSync('ReconcilePaused', 'reconciling is paused by the sluice.dev/paused annotation', false),
          ready(),
        ],
      }),
  },
  {
    name: 'deleting',
    about: 'deleted; the finalizer stays until the cloud resource is gone (deletionPolicy Delete)',
    expected: { status: 'Progressing', message: 'Pending deletion' },
    object: (kind) =>
      resource(kind, {
        deletionTimestamp: '2026-01-01T01:00:00Z',
        conditions: [ok, notReady('Deleting', 'deleting c0ffee00')],
      }),
  },
];

/** The cases a kind's health check is tested with. */
export const healthCasesOf = (kind: KindDescriptor): HealthCase[] =>
  HEALTH_CASES.filter((c) => c.appliesTo?.(kind) ?? true);
