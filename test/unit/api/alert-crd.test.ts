import { describe, expect, it } from 'vitest';
import { customResourceDefinition } from '../../../src/api/crd.ts';
import { alertKind } from '../../../src/controllers/alert.ts';

describe('the Alert CRD', () => {
  it('shows STATE and INTERVAL before the common READY, SYNCED, ID and AGE columns', () => {
    const crd = customResourceDefinition(alertKind) as {
      spec: { versions: { additionalPrinterColumns: { name: string; jsonPath: string }[] }[] };
    };
    const columns = crd.spec.versions[0]!.additionalPrinterColumns;
    expect(columns.map((c) => `${c.name} ${c.jsonPath}`)).toEqual([
      'State .status.state',
      'Interval .spec.interval',
      'Ready .status.conditions[?(@.type=="Ready")].status',
      'Synced .status.conditions[?(@.type=="Synced")].status',
      'ID .status.id',
      'Age .metadata.creationTimestamp',
    ]);
  });
});
