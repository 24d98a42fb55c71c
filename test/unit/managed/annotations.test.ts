import { describe, expect, it } from 'vitest';
import { createStatusOf } from '../../../src/managed/annotations.ts';

const withRecorded = (text: string) => ({ metadata: { annotations: { 'sluice.dev/create-status': text } } });

describe('createStatusOf', () => {
  it('reads back only the fields the kind settles before a create', () => {
    const recorded = withRecorded(
      JSON.stringify({ restoredFromBackup: { id: 'b1' }, previousKeyId: 'someone-else', id: 'x' }),
    );
    expect(createStatusOf(recorded, ['restoredFromBackup'])).toEqual({ restoredFromBackup: { id: 'b1' } });
  });

  it('reads nothing for a kind that settles nothing, or from text that is no JSON object', () => {
    expect(createStatusOf(withRecorded('{"previousKeyId":"k"}'), [])).toEqual({});
    for (const text of ['not json', '[1]', 'null', '"s"'])
      expect(createStatusOf(withRecorded(text), ['restoredFromBackup'])).toEqual({});
    expect(createStatusOf({ metadata: {} }, ['restoredFromBackup'])).toEqual({});
  });

  it('takes no field from the prototype chain', () => {
    expect(createStatusOf(withRecorded('{}'), ['toString', 'constructor'])).toEqual({});
  });
});
