import { describe, expect, it } from 'vitest';
import {
  LEASE_CLOCK_SKEW_MS,
  previousLeaderActiveUntil,
  type Lease,
} from '../../../src/kube/leader-election.ts';

const now = Date.parse('2025-06-01T12:00:30.000Z');
const lease = (spec: Lease['spec']): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'sluice', namespace: 'ops' },
  spec,
});

describe('previousLeaderActiveUntil', () => {
  it('knows of no predecessor when there was no Lease yet (a fresh install)', () => {
    expect(previousLeaderActiveUntil(undefined, now)).toBeUndefined();
  });

  it('takes a released Lease to have ended its holder at the release time (plus the clock allowance)', () => {
    const released = lease({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      renewTime: '2025-06-01T12:00:25.000000Z',
    });
    expect(previousLeaderActiveUntil(released, now)).toBe(now - 5_000 + LEASE_CLOCK_SKEW_MS);
  });

  it('takes an expired holder to have acted until its last renewal plus the lease duration', () => {
    const expired = lease({
      holderIdentity: 'pod-a',
      leaseDurationSeconds: 15,
      renewTime: '2025-06-01T12:00:10.000000Z',
    });
    expect(previousLeaderActiveUntil(expired, now)).toBe(now - 20_000 + 15_000 + LEASE_CLOCK_SKEW_MS);
  });

  it('never answers later than now, and answers now when the Lease says nothing usable', () => {
    const renewedJustNow = lease({
      holderIdentity: 'pod-a',
      leaseDurationSeconds: 15,
      renewTime: '2025-06-01T12:00:29.000000Z',
    });
    expect(previousLeaderActiveUntil(renewedJustNow, now)).toBe(now);
    expect(previousLeaderActiveUntil(lease({ holderIdentity: 'pod-a' }), now)).toBe(now);
    expect(previousLeaderActiveUntil(lease(undefined), now)).toBe(now);
  });
});
