// Bad input, derived from the schemas themselves rather than listed by hand: for every bound of a JSON schema
// (a CRD's openAPIV3Schema or a zod wire schema's JSON schema) that a valid base document reaches, a copy of
// the base with that one value just outside it. A new field or kind gets its cases without a test edit.

/** The parts of a JSON schema the cases come from. */
export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  additionalProperties?: boolean | SchemaNode;
}

export interface BadCase {
  /** Path of the field, as the apiserver prints it: `spec.source.kafka.brokers`, `spec.columns[0].name`. */
  field: string;
  /** What is wrong: `maximum 20 + 1`, `missing`, … */
  rule: string;
  document: Record<string, unknown>;
}

type Path = (string | number)[];

export const printPath = (path: Path) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');

function withValue(document: unknown, path: Path, value: unknown): Record<string, unknown> {
  const copy = structuredClone(document) as Record<string, unknown>;
  let node = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** The values just outside one scalar's bounds. */
function outside(schema: SchemaNode): { rule: string; value: unknown }[] {
  const values: { rule: string; value: unknown }[] = [];
  if (schema.enum?.every((v) => typeof v === 'string'))
    values.push({ rule: 'not in the enum', value: 'notAnEnumValue' });
  if (schema.minimum !== undefined)
    values.push({ rule: `minimum ${schema.minimum} - 1`, value: schema.minimum - 1 });
  if (schema.maximum !== undefined)
    values.push({ rule: `maximum ${schema.maximum} + 1`, value: schema.maximum + 1 });
  if (schema.multipleOf !== undefined && schema.minimum !== undefined && schema.multipleOf > 1)
    values.push({ rule: `multiple of ${schema.multipleOf}`, value: schema.minimum + 1 });
  if (schema.maxLength !== undefined)
    values.push({ rule: `maxLength ${schema.maxLength} + 1`, value: 'a'.repeat(schema.maxLength + 1) });
  if (schema.minLength !== undefined && schema.minLength > 0)
    values.push({ rule: `minLength ${schema.minLength} - 1`, value: 'a'.repeat(schema.minLength - 1) });
  return values;
}

/**
 * Every bound reached from `base`: scalars of the objects the base has (present or not), the first item of
 * its arrays, each required field removed; and, where the schema is closed, an unknown field.
 */
export function badCases(schema: SchemaNode, base: unknown, path: Path = []): BadCase[] {
  const cases: BadCase[] = [];
  if (schema.properties && base && typeof base === 'object' && !Array.isArray(base)) {
    const object = base as Record<string, unknown>;
    for (const name of schema.required ?? [])
      if (name in object)
        cases.push({
          field: printPath([...path, name]),
          rule: 'missing',
          document: withValue(base, [name], undefined),
        });
    if (schema.additionalProperties === false)
      cases.push({
        field: printPath([...path, 'chaosUnknown']),
        rule: 'unknown field',
        document: withValue(base, ['chaosUnknown'], 1),
      });
    for (const [name, property] of Object.entries(schema.properties)) {
      for (const { rule, value } of outside(property))
        cases.push({ field: printPath([...path, name]), rule, document: withValue(base, [name], value) });
      if (name in object)
        for (const inner of badCases(property, object[name], [...path, name]))
          cases.push({ ...inner, document: withValue(base, [name], inner.document) });
    }
  }
  if (schema.items && Array.isArray(base) && base.length > 0)
    for (const inner of badCases(schema.items, base[0], [...path, 0])) {
      const copy = [...base];
      copy[0] = inner.document;
      cases.push({ ...inner, document: copy as never });
    }
  return cases;
}
