import { describe, expect, it } from 'vitest';
import { badCases, type SchemaNode } from '../../../tools/chaos/bad-input.ts';

const schema: SchemaNode = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 3 },
    replicas: { type: 'integer', minimum: 1, maximum: 20 },
    memory: { type: 'number', minimum: 8, multipleOf: 4 },
    mode: { type: 'string', enum: ['a', 'b'] },
    columns: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string', minLength: 1 } } },
    },
    absent: { type: 'object', properties: { deep: { type: 'integer', maximum: 1 } } },
  },
};

describe('bad input from a schema', () => {
  it('sets each bound reached from the base just outside it, one at a time, leaving the base intact', () => {
    const base = { name: 'ab', columns: [{ name: 'id' }, { name: 'x' }] };
    const cases = badCases(schema, base, ['spec']);
    expect(cases.map((c) => `${c.field} ${c.rule}`)).toEqual([
      'spec.name missing',
      'spec.chaosUnknown unknown field',
      'spec.name maxLength 3 + 1',
      'spec.replicas minimum 1 - 1',
      'spec.replicas maximum 20 + 1',
      'spec.memory minimum 8 - 1',
      'spec.memory multiple of 4',
      'spec.mode not in the enum',
      'spec.columns[0].name minLength 1 - 1',
    ]);
    expect(cases.find((c) => c.field === 'spec.columns[0].name')!.document).toEqual({
      name: 'ab',
      columns: [{ name: '' }, { name: 'x' }],
    });
    expect(cases.find((c) => c.rule === 'maximum 20 + 1')!.document).toEqual({ ...base, replicas: 21 });
    expect(base).toEqual({ name: 'ab', columns: [{ name: 'id' }, { name: 'x' }] });
  });
});
