import { describe, expect, it } from 'vitest';
import { StatusExpectations } from '../../../src/managed/status-expectations.ts';
import type { ManagedObject, ManagedStatus } from '../../../src/managed/types.ts';

const object = (status?: ManagedStatus, resourceVersion = '1'): ManagedObject => ({
  metadata: { name: 'orders', namespace: 'team', uid: 'u-1', resourceVersion },
  spec: {},
  ...(status ? { status } : {}),
});
const ready = (value: 'True' | 'False'): ManagedStatus => ({
  conditions: [
    {
      type: 'Ready',
      status: value,
      reason: value === 'True' ? 'Available' : 'Creating',
      lastTransitionTime: '2026-11-24T00:00:00Z',
    },
  ],
});

describe('StatusExpectations', () => {
  it('does not trust a cache that still shows an older status than the one this process wrote', () => {
    const expectations = new StatusExpectations();
    expectations.wrote(object(), ready('False'), object(ready('False'), '2'));
    // The cache lags: it still shows Ready=True from before our write of Ready=False.
    expect(expectations.upToDate(object(ready('True')), ready('True'))).toBe(false);
  });

  it('forgets the written status once the cache shows it, so it holds nothing per settled object', () => {
    const expectations = new StatusExpectations();
    expectations.wrote(object(), ready('True'), object(ready('True'), '2'));
    expect(expectations.pending).toBe(1);
    expect(expectations.upToDate(object(ready('True')), ready('True'))).toBe(true);
    expect(expectations.pending).toBe(0);
    // From then on the cache alone decides.
    expect(expectations.upToDate(object(ready('True')), ready('False'))).toBe(false);
  });

  it('keeps the expectation while the cache shows something else', () => {
    const expectations = new StatusExpectations();
    expectations.wrote(object(), ready('True'), object(ready('True'), '2'));
    expectations.upToDate(object(ready('False')), ready('True'));
    expect(expectations.pending).toBe(1);
  });

  it('forgets the written status when a cache change shows it, without another reconcile', () => {
    const expectations = new StatusExpectations();
    expectations.wrote(object(), ready('True'), object(ready('True'), '2'));
    expectations.observe('team/orders', object(ready('False')));
    expect(expectations.pending).toBe(1);
    expectations.observe('team/orders', object(ready('True')));
    expect(expectations.pending).toBe(0);
  });

  it('forgets the written status of an object that is gone or was created again', () => {
    const expectations = new StatusExpectations();
    expectations.wrote(object(), ready('True'), object(ready('True'), '2'));
    expectations.observe('team/orders', undefined);
    expect(expectations.pending).toBe(0);
    expectations.wrote(object(), ready('True'), object(ready('True'), '2'));
    const recreated = object(ready('False'));
    recreated.metadata.uid = 'u-2';
    expectations.observe('team/orders', recreated);
    expect(expectations.pending).toBe(0);
  });

  it('builds on its own write while the cache still shows a version from before it', () => {
    const expectations = new StatusExpectations();
    const before = object(undefined, '1');
    expectations.wrote(before, ready('False'), object(ready('False'), '2'));
    expect(expectations.ahead(before)).toEqual(ready('False'));
    // The same status again needs no write: the server holds it already.
    expect(expectations.upToDate(before, ready('False'))).toBe(true);
    expect(expectations.upToDate(before, ready('True'))).toBe(false);
    // Once the cache has moved on, it decides again.
    expect(expectations.ahead(object(ready('True'), '3'))).toBeUndefined();
  });

  it('counts the versions of an earlier write the cache has not shown as older too', () => {
    const expectations = new StatusExpectations();
    expectations.wrote(object(undefined, '1'), ready('False'), object(ready('False'), '2'));
    expectations.wrote(object(undefined, '1'), ready('True'), object(ready('True'), '3'));
    expect(expectations.ahead(object(ready('False'), '2'))).toEqual(ready('True'));
    expect(expectations.ahead(object(undefined, '1'))).toEqual(ready('True'));
  });
});
