import { describe, expect, it } from 'vitest';
import { customResourceDefinition } from '../../src/kinds/shared/crd.ts';
import { KINDS } from '../../src/kinds/index.ts';
import { loadKinds } from '../../src/kinds/load.ts';

type Node = { [key: string]: unknown };
const specOf = (crd: Node) =>
  (((crd.spec as Node).versions as Node[])[0]!.schema as { openAPIV3Schema: Node }).openAPIV3Schema
    .properties as { spec: { properties: Record<string, Node> } };

describe('the kind registry', () => {
  it('the operator serves exactly the kinds the generator writes CRDs for, in the same order', async () => {
    const loaded = await loadKinds();
    expect(loaded.map((kind) => kind.kind)).toEqual(KINDS.map((schema) => schema.kind));
  });

  it('each loaded kind takes its descriptor as it is, restating none of its facts', async () => {
    const loaded = await loadKinds();
    for (const [i, schema] of KINDS.entries()) {
      for (const [fact, value] of Object.entries(schema)) {
        if (fact === 'controller' || fact === 'exportStep') continue;
        expect((loaded[i] as unknown as Record<string, unknown>)[fact], `${schema.kind}.${fact}`).toBe(value);
      }
    }
  });

  it("each kind's loaders give its client and its export step", async () => {
    for (const kind of await loadKinds()) expect(typeof kind.connect, kind.kind).toBe('function');
    for (const kind of KINDS) {
      const step = (await kind.exportStep()) as { scope?: unknown; position?: unknown };
      expect([step.scope, typeof step.position], kind.kind).toEqual([
        expect.stringMatching(/^(service|organization)$/),
        'number',
      ]);
    }
  });

  it("each kind's default deletion policy is the one its CRD fills in", () => {
    const defaults = KINDS.map((schema) => {
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
