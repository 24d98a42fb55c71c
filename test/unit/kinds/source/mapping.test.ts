import { describe, expect, it } from 'vitest';
import { SourceRequest, type Source } from '../../../../src/cloud/schemas/clickstack.ts';
import type { SourceSpec } from '../../../../src/kinds/source/schema.ts';
import {
  diffSource,
  exportSource,
  observedSource,
  sourceBody,
  sourceOwner,
} from '../../../../src/kinds/source/mapping.ts';
import { logSource } from '../../../../tools/fixtures/alert.ts';

const RECORD = '0b6f1c2e-4d5a-4b6c-8d7e-9f0a1b2c3d4e/team-a/Source/logs';
const spec = (fields: Partial<SourceSpec> = {}): SourceSpec => ({
  ...logSource('logs'),
  deletionPolicy: 'Delete',
  ...fields,
});
/** The source as the API stores the body of `spec()`. */
const stored = (fields: Partial<SourceSpec> = {}): Source => ({
  id: '65f0c0ffee0000000000abcd',
  ...SourceRequest.parse(sourceBody(spec(fields), RECORD)),
});

describe('Source mapping', () => {
  it('sends the spec under the API names, the owner record as the log_comment setting after the spec’s own', () => {
    const body = sourceBody(spec({ querySettings: [{ setting: 'max_threads', value: '4' }] }), RECORD);
    expect(body).toEqual({
      ...logSource('logs'),
      querySettings: [
        { setting: 'max_threads', value: '4' },
        { setting: 'log_comment', value: `sluice.dev/owner: ${RECORD}` },
      ],
    });
    expect(SourceRequest.safeParse(body).error).toBeUndefined();
    // A source adopted by id without a record is not given one.
    expect(sourceBody(spec(), '')).not.toHaveProperty('querySettings');
  });

  it('reads the owner from the setting, and shows the cloud source in spec terms without it', () => {
    const source = stored();
    expect(sourceOwner(source)).toBe(RECORD);
    expect(observedSource(source)).toEqual(logSource('logs'));
    expect(sourceOwner({ ...source, querySettings: null })).toBeUndefined();
    // The real API's metric source has no table (null): the spec's empty one.
    const metric = { ...source, kind: 'metric', from: { databaseName: 'otel', tableName: null } };
    expect(observedSource(metric)).toMatchObject({ from: { databaseName: 'otel', tableName: '' } });
  });

  it('differs in exactly the fields that changed, an expression the spec drops included', () => {
    expect(diffSource(spec(), stored())).toEqual([]);
    expect(diffSource(spec({ bodyExpression: 'Msg' }), stored())).toEqual(['bodyExpression']);
    expect(diffSource(spec({ severityTextExpression: undefined }), stored())).toEqual([
      'severityTextExpression',
    ]);
    expect(diffSource(spec({ from: { databaseName: 'otel', tableName: 'logs_v2' } }), stored())).toEqual([
      'from',
    ]);
    // An empty settings list is no settings: nothing to send.
    expect(diffSource(spec({ querySettings: [] }), stored())).toEqual([]);
  });

  it('exports a source as the spec that shows no difference, and refuses one with fields a spec has none for', () => {
    const exported = exportSource(stored());
    expect(exported).toEqual({ spec: logSource('logs') });
    expect(
      diffSource({ ...(exported as { spec: SourceSpec }).spec, deletionPolicy: 'Delete' }, stored()),
    ).toEqual([]);
    expect(exportSource({ ...stored(), materializedViews: [{ tableName: 'mv' }], createdAt: 'x' })).toEqual({
      unexpressible: 'a spec has no field for materializedViews',
    });
  });
});
