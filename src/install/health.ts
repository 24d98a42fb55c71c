import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REASONS, type ReasonMeaning } from '../base/reasons.ts';
import type { KindDescriptor } from '../kinds/shared/descriptor.ts';
import { KINDS } from '../kinds/index.ts';
import { kindReasons } from './reasons-doc.ts';

/**
 * The tables of the Argo CD health script (health.lua), each filled from the reasons table at its marker:
 * the reasons a person must act on, by the condition they are written in.
 */
const TABLES = [
  {
    marker: '-- reasons: Synced=False, Degraded',
    holds: (m: ReasonMeaning) =>
      (m.condition === 'Synced=False' || m.condition === 'both False') && m.argocd === 'Degraded',
  },
  {
    marker: '-- reasons: Ready=False, Degraded',
    holds: (m: ReasonMeaning) => m.condition === 'Ready=False' && m.argocd === 'Degraded',
  },
] as const;

/**
 * Every reason with what it means for Argo CD: the common table, then each kind's own. The script is one for
 * every kind, so a reason two tables state must land in the same health table wherever it is written.
 */
function reasonMeanings(kinds: readonly KindDescriptor[]): Map<string, ReasonMeaning> {
  const meanings = new Map<string, ReasonMeaning>(Object.entries(REASONS));
  const tableOf = (m: ReasonMeaning) => TABLES.findIndex((table) => table.holds(m));
  for (const kind of kinds) {
    for (const [reason, meaning] of kindReasons(kind)) {
      const known = meanings.get(reason);
      if (known && tableOf(known) !== tableOf(meaning)) {
        throw new Error(
          `${kind.kind}'s reason ${reason} means another Argo CD health than elsewhere: one script serves every kind`,
        );
      }
      if (!known) meanings.set(reason, meaning);
    }
  }
  return meanings;
}

/** The reasons each health table lists, by its marker: in the order the reasons tables state them. */
export function healthTables(kinds: readonly KindDescriptor[] = KINDS): Map<string, string[]> {
  const meanings = [...reasonMeanings(kinds)];
  return new Map(
    TABLES.map(({ marker, holds }) => [
      marker,
      meanings.filter(([, meaning]) => holds(meaning)).map(([reason]) => reason),
    ]),
  );
}

/** The Argo CD health script: health.lua with its reason tables filled from the reasons tables. */
export function healthLua(kinds: readonly KindDescriptor[] = KINDS): string {
  let script = readFileSync(join(import.meta.dirname, 'health.lua'), 'utf8');
  for (const [marker, reasons] of healthTables(kinds)) {
    const at = script.indexOf(marker);
    if (at < 0) throw new Error(`health.lua has no marker ${marker}`);
    const lineStart = script.lastIndexOf('\n', at) + 1;
    const indent = script.slice(lineStart, at);
    const entries = reasons.map((reason) => `${indent}${reason} = true,`).join('\n');
    script = script.slice(0, lineStart) + entries + script.slice(at + marker.length);
  }
  return script;
}
