import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { describeChanges } from '../../../src/managed/change-summary.ts';
import { EventRecorder } from '../../../src/managed/events.ts';
import type { EventSubject, EventWriter } from '../../../src/managed/kube-writer.ts';

const subject: EventSubject = {
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'Pipe',
  metadata: { name: 'orders', namespace: 'ns', uid: 'uid-1', resourceVersion: '1' },
};

function recorder() {
  let now = 0;
  const sent: string[] = [];
  const writer: EventWriter = {
    createEvent: async (_regarding, _type, reason, message) => {
      sent.push(`${reason}: ${message}`);
    },
  };
  const events = new EventRecorder(writer, pino({ enabled: false }), () => new Date(now));
  return { events, sent, advance: (ms: number) => (now += ms) };
}

describe('EventRecorder', () => {
  it('sends every change of one field, a stop, a start and a stop again within minutes', () => {
    const { events, sent, advance } = recorder();
    for (const state of ['Stopped', 'Running', 'Stopped']) {
      events.record(subject, 'Normal', 'Updated', `updated state ${state}`);
      advance(1_000);
    }
    expect(sent).toEqual([
      'Updated: updated state Stopped',
      'Updated: updated state Running',
      'Updated: updated state Stopped',
    ]);
  });

  it('holds back a repeat of the last Event of an object and reason for ten minutes', () => {
    const { events, sent, advance } = recorder();
    events.record(subject, 'Warning', 'ReconcileError', 'boom');
    advance(60_000);
    events.record(subject, 'Warning', 'ReconcileError', 'boom');
    events.record(subject, 'Warning', 'CloudFailed', 'boom');
    advance(10 * 60_000);
    events.record(subject, 'Warning', 'ReconcileError', 'boom');
    expect(sent).toEqual(['ReconcileError: boom', 'CloudFailed: boom', 'ReconcileError: boom']);
  });
});

describe('describeChanges', () => {
  it('names each changed field with the plain value the spec asks for, and lists and objects alone', () => {
    const spec = {
      state: 'Stopped',
      name: 'orders-2',
      ipAccessList: [{ source: '10.0.0.0/8' }],
      scaling: { replicas: 2 },
      source: { kafka: { credentials: { secretRef: { name: 'kafka', key: 'password' } } } },
      description: 'x'.repeat(65),
    };
    expect(
      describeChanges(spec, [
        'state',
        'name',
        'ipAccessList',
        'scaling',
        'scaling.replicas',
        'source.kafka.credentials',
        'description',
        'password',
      ]),
    ).toBe(
      'state Stopped, name orders-2, ipAccessList, scaling, scaling.replicas 2, source.kafka.credentials, description, password',
    );
  });
});
