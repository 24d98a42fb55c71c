import {
  failedSync,
  fixtureObject,
  notReady,
  syncedOk,
  type FixtureState,
  type HealthCase,
} from '../shared/health-cases.ts';
import { REVERSE_PRIVATE_ENDPOINT_REASON as REASON, reversePrivateEndpointReasons } from './reasons.ts';

const endpoint = (kind: string, state: FixtureState) =>
  fixtureObject(kind, state, reversePrivateEndpointReasons);

/** The Argo CD health (and kstatus) cases only a ReversePrivateEndpoint's code leads to. */
export const reversePrivateEndpointHealthCases: readonly HealthCase[] = [
  {
    name: 'pending-acceptance',
    about: 'the endpoint waits for the owner of the target service to accept the connection',
    expected: { status: 'Progressing', message: 'waiting for the connection to be accepted' },
    object: (kind) =>
      endpoint(kind, {
        conditions: [
          syncedOk,
          notReady(REASON.PendingAcceptance, 'waiting for the connection to be accepted'),
        ],
      }),
  },
  ...(
    [
      [REASON.Rejected, 'the connection was rejected on your side'],
      [REASON.Expired, 'the connection was not accepted in time and expired'],
      [REASON.Failed, 'the cloud reports the endpoint Failed'],
    ] as const
  ).map(([reason, message]): HealthCase => ({
    name: `endpoint-${reason.toLowerCase()}`,
    about: `the cloud reports the endpoint ${reason}: only a new endpoint helps`,
    expected: { status: 'Degraded', message },
    object: (kind) => endpoint(kind, { conditions: [syncedOk, notReady(reason, message)] }),
  })),
  ...(
    [
      [REASON.AmbiguousAdoption, 'set the annotation sluice.dev/external-id to the one to adopt'],
      [REASON.CannotUpdate, 'endpoint c0ffee00 differs in description; create a new ReversePrivateEndpoint'],
    ] as const
  ).map(([reason, message]): HealthCase => ({
    name: reason.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase(),
    about: 'the user must choose or replace the endpoint; retrying will not help',
    expected: { status: 'Degraded', message },
    object: (kind) => endpoint(kind, { conditions: [failedSync(reason, message)] }),
  })),
];
