import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../src/kinds/index.ts';
import { benchObjects, mixSecrets, servicesWithPipes, type BenchObject } from '../../../bench/mixes.ts';

/** The names of the Secrets a spec references (`…SecretRef: { name }` at any depth). */
function secretRefs(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key.endsWith('SecretRef') ? [(inner as { name: string }).name] : secretRefs(inner),
  );
}

const serviceOf = (object: BenchObject) => (object.spec.serviceRef as { name?: string } | undefined)?.name;

describe('benchmark mixes', () => {
  it('pairs: half DatabaseServices, half kafka Pipes, each into the service applied just before it', () => {
    const objects = benchObjects(7, 'pairs');
    expect(objects.map((o) => o.kind)).toEqual([
      'DatabaseService',
      'Pipe',
      'DatabaseService',
      'Pipe',
      'DatabaseService',
      'Pipe',
      'DatabaseService',
    ]);
    for (const [i, object] of objects.entries()) {
      if (object.kind !== 'Pipe') continue;
      expect(serviceOf(object)).toBe(objects[i - 1]!.name);
      expect(Object.keys(object.spec.source as object)).toEqual(['kafka']);
    }
  });

  it('all: every kind of the registry, each dependant on a service applied before it', () => {
    const objects = benchObjects(50, 'all');
    expect(new Set(objects.map((o) => o.kind))).toEqual(new Set(KINDS.map((k) => k.kind)));
    for (const [i, object] of objects.entries()) {
      const service = serviceOf(object);
      if (service) expect(objects.slice(0, i).some((o) => o.name === service)).toBe(true);
    }
  });

  it.each(['pairs', 'all'] as const)(
    '%s: manifests every kind admits, unique names, their Secrets made',
    (mix) => {
      const objects = benchObjects(50, mix);
      expect(new Set(objects.map((o) => `${o.kind}/${o.name}`)).size).toBe(50);
      const secrets = Object.keys(mixSecrets());
      for (const object of objects) {
        expect(KINDS.find((k) => k.kind === object.kind)!.spec.safeParse(object.spec).error).toBeUndefined();
        for (const name of secretRefs(object.spec)) expect(secrets).toContain(name);
      }
    },
  );

  it('servicesWithPipes: each service followed by its own kafka pipes, names unique', () => {
    const objects = servicesWithPipes(3, 2);
    expect(objects.map((o) => o.kind)).toEqual(Array(3).fill(['DatabaseService', 'Pipe', 'Pipe']).flat());
    for (const [i, object] of objects.entries()) {
      if (object.kind === 'Pipe') expect(serviceOf(object)).toBe(objects[i - (i % 3)]!.name);
    }
    expect(new Set(objects.map((o) => o.name)).size).toBe(9);
  });

  it('refuses an unknown mix, naming the choices', () => {
    expect(() => benchObjects(2, 'everything' as never)).toThrow(
      /--mix must be pairs, all or services, got everything/,
    );
  });
});
