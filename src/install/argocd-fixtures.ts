import type { KindDescriptor } from '../kinds/shared/descriptor.ts';
import {
  failedSync,
  fixtureObject,
  notReady,
  readyCondition as ready,
  syncedOk as ok,
  type FixtureState,
  type HealthCase,
} from '../kinds/shared/health-cases.ts';
import { kindNamed } from '../kinds/index.ts';

export type { HealthCase, HealthStatus } from '../kinds/shared/health-cases.ts';

/** A state any kind can be in, `appliesTo` the kinds it holds for (default: every kind). */
interface CommonHealthCase extends HealthCase {
  appliesTo?: (kind: KindDescriptor) => boolean;
}

// Which kinds a case applies to follows from what the kind declares where the runtime decides it (a kind
// with references can wait for one, one with `exclusiveOn` can meet a Conflict); the cases only one
// kind's code leads to are in that kind's descriptor (`healthCases`).
const hasReferences = (kind: KindDescriptor) => (kind.references?.length ?? 0) > 0;
const isExclusive = (kind: KindDescriptor) => kind.exclusiveOn !== undefined;

const ALLOWED_DRIFT = '1 field differs from the spec, as the field policy allows: name';

/** An object of a registered kind in a state, as the operator writes it. */
const resource = (kind: string, state?: FixtureState) => fixtureObject(kind, state, kindNamed(kind)?.reasons);

/** Every state the operator can leave any resource in; the same for every kind unless `appliesTo` says otherwise. */
export const HEALTH_CASES: CommonHealthCase[] = [
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

/** The cases a kind's health check is tested with: those of every kind it can be in, then its own. */
export const healthCasesOf = (kind: KindDescriptor): HealthCase[] => [
  ...HEALTH_CASES.filter((c) => c.appliesTo?.(kind) ?? true),
  ...(kind.healthCases ?? []),
];
