import { describe, expect, it } from 'vitest';
import { customResourceDefinition } from '../../../../src/kinds/shared/crd.ts';
import type { KindSchema } from '../../../../src/kinds/shared/kind-schema.ts';
import { alertSchema } from '../../../../src/kinds/alert/schema.ts';
import { databaseServiceSchema } from '../../../../src/kinds/database-service/schema.ts';

const columnsOf = (kind: KindSchema) =>
  (
    customResourceDefinition(kind) as {
      spec: { versions: { additionalPrinterColumns: { name: string; jsonPath: string }[] }[] };
    }
  ).spec.versions[0]!.additionalPrinterColumns.map((c) => `${c.name} ${c.jsonPath}`);

describe('the Alert CRD', () => {
  it('shows STATE and INTERVAL, then the columns every kind has', () => {
    const common = columnsOf(databaseServiceSchema).slice(databaseServiceSchema.printerColumns.length);
    expect(columnsOf(alertSchema)).toEqual(['State .status.state', 'Interval .spec.interval', ...common]);
    expect(common.map((c) => c.split(' ')[0])).toEqual(
      expect.arrayContaining(['Ready', 'Synced', 'ID', 'Age']),
    );
  });
});
