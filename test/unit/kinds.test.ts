import { describe, expect, it } from 'vitest';
import { customResourceDefinition } from '../../src/kinds/shared/crd.ts';
import { KIND_SCHEMAS } from '../../src/kinds/schemas.ts';
import { KINDS } from '../../src/kinds/index.ts';

type Node = { [key: string]: unknown };
const specOf = (crd: Node) =>
  (((crd.spec as Node).versions as Node[])[0]!.schema as { openAPIV3Schema: Node }).openAPIV3Schema
    .properties as { spec: { properties: Record<string, Node> } };

describe('the kind registries', () => {
  it('the operator serves exactly the kinds the generator writes CRDs for, in the same order', () => {
    expect(KINDS.map((kind) => kind.kind)).toEqual(KIND_SCHEMAS.map((schema) => schema.kind));
  });

  it("each controller takes its kind's schema as it is, restating none of its facts", () => {
    for (const [i, schema] of KIND_SCHEMAS.entries()) {
      for (const [fact, value] of Object.entries(schema))
        expect(KINDS[i]![fact as keyof typeof schema], `${schema.kind}.${fact}`).toBe(value);
    }
  });

  it("each kind's default deletion policy is the one its CRD fills in", () => {
    const defaults = KIND_SCHEMAS.map((schema) => {
      const { deletionPolicy } = specOf(customResourceDefinition(schema)).spec.properties;
      expect(deletionPolicy?.default, schema.kind).toBe(schema.defaultDeletionPolicy);
      return [schema.kind, schema.defaultDeletionPolicy];
    });
    // Deleting a DatabaseService leaves the service (and its data) by default; everything else goes with it.
    expect(Object.fromEntries(defaults)).toEqual({
      DatabaseService: 'Orphan',
      Pipe: 'Delete',
      Webhook: 'Delete',
      Source: 'Delete',
      SavedSearch: 'Delete',
      Dashboard: 'Delete',
      Alert: 'Delete',
      QueryEndpoint: 'Delete',
      ReversePrivateEndpoint: 'Delete',
      ApiKey: 'Delete',
    });
  });
});
