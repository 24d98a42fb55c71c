/**
 * The lifecycles of the emulated resources, as pure functions of (current state, command). A plan's first step
 * is entered at once (it is what the answer to the request shows); every later step follows `transitionMs`
 * after the previous one. `GONE` as a step removes the resource.
 */
import type { PipeCommand, PipeState, SourceKind } from '../cloud/schemas/pipe.ts';
import type { RPE_STATUSES, RPE_TYPES } from '../cloud/schemas/reverse-private-endpoint.ts';
import type { ServiceCommand, ServiceState } from '../cloud/schemas/service.ts';
import { DELETABLE_SERVICE_STATES } from '../cloud/schemas/service.ts';

export const GONE = 'gone';
export type Step<S extends string> = S | typeof GONE;

export type Plan<S extends string> =
  | { kind: 'steps'; steps: readonly Step<S>[] }
  | { kind: 'noop' }
  | { kind: 'refused'; status: 400 | 409; message: string };

const steps = <S extends string>(...list: Step<S>[]): Plan<S> => ({ kind: 'steps', steps: list });
const noop = { kind: 'noop' } as const;
const refused = <S extends string>(status: 400 | 409, message: string): Plan<S> => ({
  kind: 'refused',
  status,
  message,
});

// ---------------------------------------------------------------- services

export const SERVICE_CREATE_STEPS: readonly ServiceState[] = ['provisioning', 'running'];

/** States in which a service is already on its way to (or at) running. */
const RUNNING_OR_HEADING_THERE: readonly ServiceState[] = [
  'running',
  'provisioning',
  'starting',
  'awaking',
  'degraded',
];

/**
 * `start`: stopped → starting → running; idle → awaking → running; no-op when running or already heading there.
 * `stop`: running | idle | degraded → stopping → stopped; no-op when stopped or stopping.
 * `awake`: idle → awaking → running; no-op when stopped (as the real service) or running/heading there.
 * Anything else (e.g. start while stopping, any command on a failed or terminating service) → 409.
 */
export function serviceCommandPlan(state: ServiceState, command: ServiceCommand): Plan<ServiceState> {
  switch (command) {
    case 'start':
      if (state === 'stopped') return steps('starting', 'running');
      if (state === 'idle') return steps('awaking', 'running');
      if (RUNNING_OR_HEADING_THERE.includes(state)) return noop;
      break;
    case 'stop':
      if (state === 'running' || state === 'idle' || state === 'degraded')
        return steps('stopping', 'stopped');
      if (state === 'stopped' || state === 'stopping') return noop;
      break;
    case 'awake':
      if (state === 'idle') return steps('awaking', 'running');
      if (state === 'stopped' || RUNNING_OR_HEADING_THERE.includes(state)) return noop;
      break;
  }
  return refused(409, `cannot ${command} the service. Current state: '${state}'`);
}

/**
 * A resize (replicaScaling PATCH) of a running service takes effect as its replicas restart one by one with
 * the new size: degraded (reduced capacity), then running again. In any other state the new values simply
 * apply when it next runs (a terminating service refuses any change before this is asked).
 */
export function serviceResizePlan(state: ServiceState): Plan<ServiceState> {
  return state === 'running' ? steps('degraded', 'running') : noop;
}

/** DELETE: terminating → gone from the deletable states; a terminating service: no-op; running|stopping: 409. */
export function serviceDeletePlan(state: ServiceState): Plan<ServiceState> {
  if (state === 'terminating') return noop;
  if (DELETABLE_SERVICE_STATES.includes(state)) return steps('terminating', GONE);
  return refused(409, `the service must be stopped before it is deleted. Current state: '${state}'`);
}

// ---------------------------------------------------------------- pipes

/** What a pipe goes through from provisioning; `initial` = creation (postgres then sets up and snapshots). */
export function pipeRunSteps(kind: SourceKind, isContinuous: boolean, initial: boolean): PipeState[] {
  if (kind === 'postgres')
    return initial ? ['Provisioning', 'Setup', 'Snapshot', 'Running'] : ['Provisioning', 'Running'];
  if (kind === 'objectStorage' && !isContinuous) return ['Provisioning', 'Running', 'Completed'];
  return ['Provisioning', 'Running'];
}

/** States `start` resumes from. */
const STARTABLE_PIPE_STATES: readonly PipeState[] = ['Stopped', 'Failed', 'Paused', 'InternalError'];

/** States `resync` re-snapshots from: the pipe must be replicating. */
const RESYNCABLE_PIPE_STATES: readonly PipeState[] = ['Running', 'Degraded'];

/**
 * `start`: Stopped | Failed | Paused | InternalError → Provisioning → Running (→ Completed for a one-shot object
 * storage pipe); Running → 400 already running; other states (still provisioning, stopping, completed) → 409.
 * `stop`: any state → Stopping → Stopped; no-op when Stopped or Stopping.
 * `resync` (postgres only, else 400): Running | Degraded → Snapshot → Running; other states → 409.
 */
export function pipeCommandPlan(
  state: PipeState,
  command: PipeCommand,
  kind: SourceKind,
  isContinuous: boolean,
): Plan<PipeState> {
  if (command === 'stop') {
    return state === 'Stopped' || state === 'Stopping' ? noop : steps('Stopping', 'Stopped');
  }
  if (command === 'resync') {
    if (kind !== 'postgres')
      return refused(400, `command resync applies only to postgres pipes (this is ${kind})`);
    if (RESYNCABLE_PIPE_STATES.includes(state)) return steps('Snapshot', 'Running');
    return refused(409, `cannot resync the pipe. Current state: '${state}'`);
  }
  if (state === 'Running') return refused(400, 'pipe is already running');
  if (STARTABLE_PIPE_STATES.includes(state)) return steps(...pipeRunSteps(kind, isContinuous, false));
  return refused(409, `cannot start the pipe. Current state: '${state}'`);
}

// ---------------------------------------------------------------- reverse private endpoints

export type RpeStatus = (typeof RPE_STATUSES)[number];
export type RpeType = (typeof RPE_TYPES)[number];

/** A VPC endpoint service connection waits for acceptance on the provider side; the others do not. */
export function rpeCreateSteps(type: RpeType): RpeStatus[] {
  return type === 'VPC_ENDPOINT_SERVICE'
    ? ['Provisioning', 'PendingAcceptance', 'Ready']
    : ['Provisioning', 'Ready'];
}

export function rpeDeletePlan(status: RpeStatus): Plan<RpeStatus> {
  return status === 'Deleting' ? noop : steps('Deleting', GONE);
}
