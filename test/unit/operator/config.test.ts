import { describe, expect, it } from 'vitest';
import { OperatorConfig } from '../../../src/operator/config.ts';

describe('OperatorConfig namespace', () => {
  it('takes one namespace or a comma-separated list of them', () => {
    expect(OperatorConfig.parse({ namespace: 'team-a' }).namespace).toBe('team-a');
    expect(OperatorConfig.parse({ namespace: 'team-a,team-b' }).namespace).toBe('team-a,team-b');
  });

  it('refuses a list with an empty entry, a space or a name that is not a namespace, naming the field', () => {
    for (const namespace of ['team-a,', 'team-a, team-b', 'Team_A']) {
      const result = OperatorConfig.safeParse({ namespace });
      expect(result.success).toBe(false);
      expect(result.error!.issues[0]).toMatchObject({
        path: ['namespace'],
        message: 'must be a namespace or a comma-separated list of namespaces',
      });
    }
  });
});
