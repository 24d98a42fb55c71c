import { describe, expect, it } from 'vitest';
import { customResourceDefinition } from '../../../../src/kinds/shared/crd.ts';
import type { KindDescriptor } from '../../../../src/kinds/shared/descriptor.ts';
import { alertKind } from '../../../../src/kinds/alert/kind.ts';
import { databaseServiceKind } from '../../../../src/kinds/database-service/kind.ts';

const columnsOf = (kind: KindDescriptor) =>
  (
    customResourceDefinition(kind) as {
      spec: { versions: { additionalPrinterColumns: { name: string; jsonPath: string }[] }[] };
    }
  ).spec.versions[0]!.additionalPrinterColumns.map((c) => `${c.name} ${c.jsonPath}`);

describe('the Alert CRD', () => {
  it('shows STATE and INTERVAL, then the columns every kind has', () => {
    const common = columnsOf(databaseServiceKind).slice(databaseServiceKind.printerColumns.length);
    expect(columnsOf(alertKind)).toEqual(['State .status.state', 'Interval .spec.interval', ...common]);
    expect(common.map((c) => c.split(' ')[0])).toEqual(
      expect.arrayContaining(['Ready', 'Synced', 'ID', 'Age']),
    );
  });
});
