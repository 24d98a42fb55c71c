import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { REASONS } from '../../../src/base/reasons.ts';
import { kindReasons, reasonTables, withReasonTable } from '../../../src/install/reasons-doc.ts';
import { KINDS } from '../../../src/kinds/index.ts';
import { readyReasonsNeedingAPerson } from '../../../src/managed/progress-conditions.ts';

const root = join(import.meta.dirname, '../../..');

describe('the reasons table and the pages that list it', () => {
  it.each(reasonTables(KINDS).map(({ path, table }) => [path, table]))(
    '%s lists the reasons as the table states them (run npm run generate when this fails)',
    async (path, table) => {
      const file = join(root, path);
      const page = readFileSync(file, 'utf8');
      const generated = withReasonTable(path, page, table);
      expect(await format(generated, { ...(await resolveConfig(file)), filepath: file })).toBe(page);
    },
  );

  it("gives every kind's own reason a full meaning", () => {
    for (const kind of KINDS) expect(() => kindReasons(kind)).not.toThrow();
  });

  it('refuses a page without its markers, naming it', () => {
    expect(() => withReasonTable('docs/x.md', '# x', '')).toThrow(/docs\/x\.md has no/);
  });

  it('makes Stalled of every Ready=False reason the table says a person must end', () => {
    const terminal = Object.entries(REASONS)
      .filter(([, m]) => m.condition === 'Ready=False' && m.end === 'terminal')
      .map(([reason]) => reason);
    for (const reason of terminal) expect(readyReasonsNeedingAPerson().has(reason)).toBe(true);
    for (const kind of KINDS) {
      const stalling = readyReasonsNeedingAPerson(kind.reasons);
      for (const reason of terminal) expect(stalling.has(reason)).toBe(true);
      for (const [reason, m] of kindReasons(kind)) {
        if (m.condition === 'Ready=False') expect(stalling.has(reason), reason).toBe(m.end === 'terminal');
      }
    }
  });
});
