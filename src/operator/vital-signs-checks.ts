import { HealthChecks } from '../kube/health-and-metrics-servers.ts';
import type { VitalState } from './vital-state.ts';

export interface VitalBounds {
  /** How long the main event loop, a work queue with work, or the elector may make no progress. */
  stallTimeoutMs: number;
  leaderElect: boolean;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * Liveness: progress, not promptness. The process is stuck when its main event loop has not turned, a work
 * queue holding work has not moved (no key handed out or finished), or the elector has not finished an attempt,
 * for longer than the stall timeout. A loop that is merely busy turns, queues that are merely long move.
 */
export function livenessChecks(state: VitalState, bounds: VitalBounds, now: () => number): HealthChecks {
  const stalled = (since: number, what: string) => {
    const forMs = now() - since;
    if (since > 0 && forMs > bounds.stallTimeoutMs) throw new Error(`${what} for ${seconds(forMs)}`);
  };
  const checks = new HealthChecks()
    .add('event-loop', () => stalled(state.read('mainTurnedAt'), 'the main event loop has not turned'))
    .add('work-queues', () =>
      stalled(state.read('workStalledSince'), 'a work queue holding work has not moved'),
    );
  if (bounds.leaderElect) {
    checks.add('leader-election', () =>
      stalled(state.read('electorTriedAt'), 'the leader election has made no attempt'),
    );
  }
  return checks;
}

/**
 * Readiness: whether this replica can serve. A standby (not leading) can: with replicas > 1 it must not hold a
 * rollout or `helm --wait` forever. The process that reconciles can once every cache has synced. A process
 * shutting down cannot.
 */
export function readinessChecks(state: VitalState, bounds: VitalBounds, now: () => number): HealthChecks {
  return new HealthChecks().add('controllers-synced', () => {
    if (state.read('stopping') === 1) throw new Error('shutting down');
    const standby = bounds.leaderElect && state.read('leadingUntil') <= now();
    return standby || state.read('synced') === 1;
  });
}
