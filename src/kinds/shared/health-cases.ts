import { API_VERSION } from './common.ts';
import type { KindReasons } from '../../base/reasons.ts';
import { progressConditions, readyReasonsNeedingAPerson } from '../../managed/index.ts';

// The Argo CD health (and kstatus) fixtures: one state of a sluice object each, as the operator writes its
// status, and the health Argo CD must show for it. The cases every kind can be in are src/install's; a
// kind's own are in its descriptor (`healthCases`), built with these.

/** Argo CD's health statuses. */
export type HealthStatus = 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';

export interface FixtureCondition {
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
  object: (kind: string) => Record<string, unknown>;
}

const T0 = '2026-01-01T00:00:00Z';

export interface FixtureState {
  conditions?: FixtureCondition[];
  generation?: number;
  observedGeneration?: number;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

/** An object of `kind` in a state, its status as the operator writes it for a kind with `reasons` of its own. */
export function fixtureObject(
  kind: string,
  opts: FixtureState = {},
  reasons?: KindReasons,
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
            conditions: withProgress(opts.conditions, generation, reasons).map((c) => ({
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
function withProgress(
  conditions: FixtureCondition[],
  generation: number,
  reasons: KindReasons | undefined,
): FixtureCondition[] {
  const stated = conditions.map((c) => ({ ...c, lastTransitionTime: T0 }));
  const needsAPerson = conditions.some((c) => c.type === 'Synced' && c.needsAPerson === true);
  const readyNeedsAPerson = readyReasonsNeedingAPerson(reasons);
  const progress = progressConditions(stated, generation, needsAPerson, readyNeedsAPerson);
  return [...conditions.map(({ needsAPerson: _, ...c }) => c), ...progress];
}

/** Synced=True: the last reconcile worked. */
export const syncedOk: FixtureCondition = { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' };

export const readyCondition = (message?: string): FixtureCondition => ({
  type: 'Ready',
  status: 'True',
  reason: 'Available',
  ...(message ? { message } : {}),
});

export const notReady = (reason: string, message: string): FixtureCondition => ({
  type: 'Ready',
  status: 'False',
  reason,
  message,
});

/** Synced=False for a failure only a person ends (the default), or one a retry may end. */
export const failedSync = (reason: string, message: string, needsAPerson = true): FixtureCondition => ({
  type: 'Synced',
  status: 'False',
  reason,
  message,
  needsAPerson,
});
