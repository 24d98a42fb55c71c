import { describe, expect, it } from 'vitest';
import { REASON, reasonNames, type KindReasons } from '../../../src/base/reasons.ts';
import { ReconcileError } from '../../../src/managed/errors.ts';

// The `@ts-expect-error` lines are the test: `npm run typecheck` fails on one that no longer errs, so a
// reason a kind did not declare compiling again fails CI.
describe('a reason a kind raises', () => {
  const widgetReasons = {
    CannotResize: { means: 'the size can only grow', end: 'terminal' },
  } as const satisfies KindReasons;
  const WIDGET_REASON = reasonNames(widgetReasons);

  it('is one of its declared reasons, by the name its table gives it, or a common one', () => {
    expect(ReconcileError.terminal(WIDGET_REASON.CannotResize, 'shrinking', 1_000).reason).toBe(
      'CannotResize',
    );
    expect(Object.keys(WIDGET_REASON)).toEqual(['CannotResize']);
    expect(ReconcileError.retry(REASON.SecretMissing, 'no Secret').reason).toBe('SecretMissing');
  });

  it('is never a bare string, even one spelled like a declared reason: that does not compile', () => {
    // @ts-expect-error a bare literal is no declared reason
    const bare = ReconcileError.terminal('CannotResize', 'shrinking', 1_000);
    // @ts-expect-error a name the table does not hold is no reason of the kind
    const undeclared: unknown = WIDGET_REASON.CannotShrink;
    expect([bare.reason, undeclared]).toEqual(['CannotResize', undefined]);
  });
});
