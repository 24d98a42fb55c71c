// The Source's mapping between spec and cloud, pure: the body (`sourceBody`), the cloud source in the spec's
// terms (`observedSource`), the differences (`diffSource`), the owner (`sourceOwner`) and the export mapping.
import { isDeepStrictEqual } from 'node:util';
import { OWNER_SETTING, type SourceSpec } from './schema.ts';
import type { SourceBody } from '../../cloud/alerting-client.ts';
import { requestBody } from '../../cloud/request-body.ts';
import { SourceRequest, type Source } from '../../cloud/schemas/clickstack.ts';
import { ownerNote, recordIn } from '../shared/owner-note.ts';

/** The body's fields, each the spec's under the same name. */
const FIELDS = Object.keys(SourceRequest.shape) as (keyof SourceBody & keyof SourceSpec)[];
/** What the cloud answers besides the body's fields, sluice's to ignore. */
const CLOUD_OWN = new Set(['id', 'team', 'createdAt', 'updatedAt']);

type Setting = { setting: string; value: string };
const isOwnerSetting = (setting: Setting) => setting.setting === OWNER_SETTING;

/**
 * The create and replace body: the spec's fields (the PUT replaces it whole), the owner record a setting (none
 * for a source adopted by id that had none: `record` empty).
 */
export function sourceBody(spec: SourceSpec, record: string): SourceBody {
  const owner = record ? [{ setting: OWNER_SETTING, value: ownerNote(record) }] : [];
  const settings = [...(spec.querySettings ?? []), ...owner];
  return requestBody(SourceRequest, { ...spec, querySettings: settings.length > 0 ? settings : undefined });
}

/** The record the source's owner setting holds. */
export const sourceOwner = (source: Source): string | undefined =>
  recordIn(source.querySettings?.find(isOwnerSetting)?.value);

/** The cloud source in the spec's terms: the body's fields it has, its settings without the owner's. */
export function observedSource(source: Source): Record<string, unknown> {
  const settings = (source.querySettings ?? []).filter((setting) => !isOwnerSetting(setting));
  const shown: Record<string, unknown> = {
    ...source,
    from: { databaseName: source.from.databaseName, tableName: source.from.tableName ?? '' },
    querySettings:
      settings.length > 0 ? settings.map(({ setting, value }) => ({ setting, value })) : undefined,
  };
  return Object.fromEntries(
    FIELDS.filter((f) => shown[f] !== undefined && shown[f] !== null).map((f) => [f, shown[f]]),
  );
}

export function diffSource(spec: SourceSpec, source: Source): string[] {
  const observed = observedSource(source);
  const desired = observedSource({ id: '', ...sourceBody(spec, '') } as Source);
  return FIELDS.filter((field) => !isDeepStrictEqual(desired[field], observed[field]));
}

/** The spec that adopts a source as it is; one with fields a spec has none for cannot be (a replace drops them). */
export function exportSource(source: Source): { spec: Record<string, unknown> } | { unexpressible: string } {
  const known = new Set<string>(FIELDS);
  const others = Object.keys(source).filter(
    (field) =>
      !known.has(field) && !CLOUD_OWN.has(field) && source[field] !== null && source[field] !== undefined,
  );
  if (others.length > 0) return { unexpressible: `a spec has no field for ${others.sort().join(', ')}` };
  return { spec: observedSource(source) };
}
