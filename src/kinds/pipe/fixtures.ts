import {
  failedSync,
  fixtureObject,
  notReady,
  readyCondition,
  type HealthCase,
} from '../shared/health-cases.ts';
import { PIPE_REASON, pipeReasons } from './reasons.ts';

/** The Argo CD health (and kstatus) cases only a Pipe's code leads to. */
export const pipeHealthCases: readonly HealthCase[] = [
  {
    name: 'cannot-rotate',
    about: 'a referenced Secret changed, but the cloud cannot change that connection string in place',
    expected: { status: 'Degraded', message: 'source.kafka: restore the Secret or create a new Pipe' },
    object: (kind) =>
      fixtureObject(
        kind,
        {
          conditions: [
            failedSync(PIPE_REASON.CannotRotate, 'source.kafka: restore the Secret or create a new Pipe'),
            readyCondition(),
          ],
        },
        pipeReasons,
      ),
  },
  {
    name: 'invalid-reference',
    about: 'a referenced ReversePrivateEndpoint belongs to another service than the pipe',
    expected: { status: 'Degraded', message: 'ReversePrivateEndpoint msk belongs to service other' },
    object: (kind) =>
      fixtureObject(
        kind,
        {
          conditions: [
            failedSync('InvalidReference', 'ReversePrivateEndpoint msk belongs to service other'),
            notReady('Creating', 'being created'),
          ],
        },
        pipeReasons,
      ),
  },
];
