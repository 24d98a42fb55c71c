import { describe, expect, it } from 'vitest';
import { listedSince } from '../../../src/kinds/shared/cloud-calls.ts';
import { CreateAttempts } from '../../../src/managed/create-attempts.ts';
import type { ManagedObject } from '../../../src/managed/types.ts';

describe('the lost-create look-up after a wall-clock step', () => {
  it('searches only lists started after the create ended, measured on the monotonic clock', () => {
    let wall = Date.parse('2030-01-01T00:00:00Z');
    let monotonic = 1_000;
    const attempts = new CreateAttempts(
      () => new Date(wall),
      () => monotonic,
    );
    const resource: ManagedObject = {
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'Pipe',
      metadata: {
        name: 'orders',
        namespace: 'shop',
        uid: 'u-1',
        annotations: { 'sluice.dev/create-pending': new Date(wall).toISOString() },
      },
      spec: {},
    };
    wall += 500;
    monotonic += 500;
    attempts.createEnded(resource);
    // The wall clock steps an hour forward; 100 ms pass.
    wall += 3_600_000 + 100;
    monotonic += 100;
    const lost = attempts.lostCreate(resource)!;
    // A snapshot at most 100 ms old (started after the call ended) may be searched, not the poll interval's 2 s.
    expect(listedSince(lost, 2_000, wall)).toBe(100);
  });
});
