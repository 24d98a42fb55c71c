import { describe, expect, it } from 'vitest';
import { webhookKind } from '../../../src/kinds/webhook/kind.ts';
import { KINDS } from '../../../src/kinds/index.ts';
import { healthCasesOf } from '../../../src/install/argocd-fixtures.ts';

const kindsWithCase = (name: string) =>
  KINDS.filter((kind) => healthCasesOf(kind).some((c) => c.name === name)).map((k) => k.kind);

describe('Argo CD health fixtures by kind', () => {
  it('a kind waits for a reference only when it declares references', () => {
    expect(kindsWithCase('waiting-for-reference')).toEqual(
      KINDS.filter((kind) => kind.references?.length).map((k) => k.kind),
    );
    expect(kindsWithCase('waiting-for-reference')).not.toContain('Webhook');
    expect(kindsWithCase('waiting-for-reference')).toContain('Alert');
  });

  it('a kind meets a Conflict only when it is exclusive on a reference (one QueryEndpoint per service)', () => {
    expect(kindsWithCase('conflict')).toEqual(['QueryEndpoint']);
  });

  it('follow a declaration added to a kind', () => {
    const alertOnAService = {
      ...webhookKind,
      references: KINDS[1]!.references,
      exclusiveOn: 'service',
    };
    const names = healthCasesOf(alertOnAService).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['waiting-for-reference', 'conflict']));
  });

  it('give every kind the cases every kind can be in', () => {
    for (const kind of KINDS)
      expect(healthCasesOf(kind).map((c) => c.name)).toEqual(
        expect.arrayContaining(['ready', 'new', 'deleting', 'paused', 'already-managed']),
      );
  });
});
