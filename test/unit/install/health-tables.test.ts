import { describe, expect, it } from 'vitest';
import { REASONS, type ReasonMeaning } from '../../../src/base/reasons.ts';
import { healthLua } from '../../../src/install/health.ts';
import { kindReasons } from '../../../src/install/reasons-doc.ts';
import { alertKind } from '../../../src/kinds/alert/kind.ts';
import { KINDS } from '../../../src/kinds/index.ts';

/** The reason names a `local <name> = { … }` table of the script holds. */
function luaTable(script: string, name: string): string[] {
  const body = new RegExp(`local ${name} = \\{([^}]*)\\}`).exec(script)?.[1];
  if (body === undefined) throw new Error(`no table ${name} in the script`);
  return [...body.matchAll(/^\s*([A-Za-z]+) = true,$/gm)].map((match) => match[1]!).sort();
}

/** Every reason of the common table and of each kind, with what it means. */
const meanings: [string, ReasonMeaning][] = [
  ...Object.entries(REASONS),
  ...KINDS.flatMap((kind) => kindReasons(kind)),
];
const reasonsWhere = (holds: (meaning: ReasonMeaning) => boolean) =>
  [...new Set(meanings.filter(([, meaning]) => holds(meaning)).map(([reason]) => reason))].sort();

describe('the Argo CD health script', () => {
  const script = healthLua();

  it('calls Degraded, in Synced, exactly the Synced=False reasons the reasons tables say Argo CD shows Degraded', () => {
    expect(luaTable(script, 'userMustAct')).toEqual(
      reasonsWhere(
        (m) => (m.condition === 'Synced=False' || m.condition === 'both False') && m.argocd === 'Degraded',
      ),
    );
  });

  it('calls Degraded, in Ready, exactly the Ready=False reasons the reasons tables say Argo CD shows Degraded', () => {
    expect(luaTable(script, 'failed')).toEqual(
      reasonsWhere((m) => m.condition === 'Ready=False' && m.argocd === 'Degraded'),
    );
    expect(luaTable(script, 'failed')).toEqual(expect.arrayContaining(['CloudFailed', 'Rejected']));
  });

  it('refuses a kind whose reason would mean another health than the same reason elsewhere, naming it', () => {
    const waitingConflict = {
      ...alertKind,
      reasons: {
        Conflict: {
          condition: 'Ready=False',
          end: 'wait',
          kstatus: 'InProgress',
          argocd: 'Progressing',
          means: 'waits',
        } as const,
      },
    };
    expect(() => healthLua([waitingConflict])).toThrow(/Alert's reason Conflict/);
  });
});
