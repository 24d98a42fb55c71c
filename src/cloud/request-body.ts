import type { z } from 'zod';

/** The parts of a zod schema's definition the walk below reads (zod's own `_zod.def`). */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: readonly z.ZodType[];
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A request body for the cloud: exactly the fields of `value` the request schema names, at every depth
 * (undefined ones left out). Bodies are built from the contract's fields rather than by removing sluice's
 * own, so a field sluice adds to a spec can never reach the cloud. Values are not validated here: the
 * client does that, as for every request.
 */
export function requestBody<S extends z.ZodType>(schema: S, value: object): z.input<S> {
  return pick(schema, value) as z.input<S>;
}

function pick(schema: z.ZodType, value: unknown): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return value === undefined || value === null ? value : pick(def.innerType!, value);
    case 'pipe':
      return pick(def.in!, value);
    case 'array':
      return Array.isArray(value) ? value.map((item) => pick(def.element!, item)) : value;
    case 'record':
      return isRecord(value)
        ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, pick(def.valueType!, item)]))
        : value;
    case 'union': {
      // Each alternative keeps what it names: an object matching any of them loses only what none names.
      if (!isRecord(value)) return value;
      const picked = def.options!.map((option) => pick(option, value));
      return Object.assign({}, ...picked.filter(isRecord));
    }
    case 'object':
      return isRecord(value) ? pickObject(def, value) : value;
    default:
      return value;
  }
}

function pickObject(def: SchemaDef, value: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  // A schema open to further keys (pipe settings) passes them on as they are; a strict or plain one does not.
  const open = def.catchall !== undefined && defOf(def.catchall).type !== 'never';
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const field = def.shape![key];
    if (field) body[key] = pick(field, item);
    else if (open) body[key] = item;
  }
  return body;
}
