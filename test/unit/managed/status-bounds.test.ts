import { describe, expect, it } from 'vitest';
import { boundedText, recordedAnnotation, STATUS_BOUNDS } from '../../../src/managed/status-bounds.ts';

describe('status bounds', () => {
  it('records an annotation value that fits as it is, and a longer one by a digest that tells values apart', () => {
    expect(recordedAnnotation('2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00Z');
    const long = 'x'.repeat(STATUS_BOUNDS.recordedAnnotation + 1);
    expect(recordedAnnotation(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(recordedAnnotation(long)).toBe(recordedAnnotation(long));
    expect(recordedAnnotation(`${long}y`)).not.toBe(recordedAnnotation(long));
    expect(recordedAnnotation(long).length).toBeLessThanOrEqual(STATUS_BOUNDS.recordedAnnotation);
  });

  it('cuts text to its bound and marks the cut', () => {
    expect(boundedText('short', 10)).toBe('short');
    expect(boundedText('abcdefghijk', 10)).toBe('abcdefghi…');
    expect(boundedText('abcdefghijk', 10)).toHaveLength(10);
  });
});
