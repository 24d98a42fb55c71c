import { REASONS, type ReasonMeaning } from '../base/reasons.ts';
import type { KindDescriptor } from '../kinds/shared/descriptor.ts';

const BEGIN =
  "<!-- reasons: written by `npm run generate` from src/base/reasons.ts and the kinds' schemas -->";
const END = '<!-- /reasons -->';

const END_WORDS: Record<ReasonMeaning['end'], string> = {
  none: '—',
  wait: 'by itself',
  retry: 'retried',
  terminal: 'a person acts',
};

/** A kind's page: `DatabaseService` → `docs/kinds/database-service.md`. */
const pageOf = (kind: string) => `docs/kinds/${kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.md`;

function table(rows: [string, ReasonMeaning][]): string {
  const header = [
    '| condition | reason | means | ends when | kstatus | Argo CD |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  const lines = rows.map(
    ([reason, m]) =>
      `| \`${m.condition}\` | \`${reason}\` | ${m.means} | ${END_WORDS[m.end]} | ${m.kstatus} | ${m.argocd} |`,
  );
  return [...header, ...lines].join('\n');
}

/** A kind's reasons in full: its own, and the common ones it words for itself on the common table's terms. */
export function kindReasons(kind: KindDescriptor): [string, ReasonMeaning][] {
  return Object.entries(kind.reasons ?? {}).map(([reason, given]) => {
    const common = (REASONS as Record<string, ReasonMeaning>)[reason];
    const meaning = { ...common, ...given };
    if (!meaning.condition || !meaning.end || !meaning.kstatus || !meaning.argocd) {
      throw new Error(
        `${kind.kind}'s reason ${reason} is in no table: give its condition, end, kstatus and argocd`,
      );
    }
    return [reason, meaning as ReasonMeaning];
  });
}

/** Each page that lists reasons, with the table it holds between its markers. */
export function reasonTables(kinds: readonly KindDescriptor[]): { path: string; table: string }[] {
  return [
    { path: 'docs/kinds/README.md', table: table(Object.entries(REASONS)) },
    ...kinds
      .filter((kind) => Object.keys(kind.reasons ?? {}).length > 0)
      .map((kind) => ({ path: pageOf(kind.kind), table: table(kindReasons(kind)) })),
  ];
}

/** `page` with `table` between its markers; a page without them is refused, naming it. */
export function withReasonTable(path: string, page: string, table: string): string {
  const begin = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${path} has no ${BEGIN} … ${END} markers`);
  return `${page.slice(0, begin)}${BEGIN}\n\n${table}\n\n${page.slice(end)}`;
}
