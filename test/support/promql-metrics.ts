/**
 * Checks the metric names and labels PromQL expressions use against a scrape of the operator's /metrics:
 * a small tokenizer that finds every vector selector (metric name and the labels of its matchers) and every
 * grouping label (`by`, `without`, `on`, `ignoring`, `group_left`, `group_right`). Not a PromQL parser: it
 * knows just enough of the grammar to tell metric names from functions, keywords and label names.
 */

interface Token {
  kind: 'ident' | 'string' | 'number' | 'punct' | 'variable';
  text: string;
}

/** What an expression asks of the metrics: each selector's name and matcher labels, and grouping labels. */
export interface MetricUses {
  selectors: { metric: string; labels: string[] }[];
  groupingLabels: string[];
}

const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS = new Set(['bool', 'and', 'or', 'unless', 'offset', 'atan2', 'inf', 'nan']);
/** Aggregations, which may take their grouping before the parenthesis: `sum by (x) (…)`. */
const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const rest = expr.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    if (rest[0] === '#') {
      i += (/^#[^\n]*/.exec(rest) ?? [''])[0].length;
      continue;
    }
    if (rest[0] === '[') {
      // A range or subquery ([5m], [$__rate_interval], [1h:5m]): durations only, no metric.
      const end = expr.indexOf(']', i);
      if (end < 0) throw new Error(`unclosed [ in ${expr}`);
      i = end + 1;
      continue;
    }
    const string = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)/.exec(rest);
    const number = /^(?:0x[0-9a-f]+|\d+(?:\.\d+)?(?:e[+-]?\d+)?[a-z]*)/i.exec(rest);
    const ident = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest);
    const variable = /^\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?/.exec(rest);
    const punct = /^(?:==|!=|=~|!~|>=|<=|[-+*/%^=<>(){},@])/.exec(rest);
    const [kind, match] = string
      ? (['string', string] as const)
      : number
        ? (['number', number] as const)
        : ident
          ? (['ident', ident] as const)
          : variable
            ? (['variable', variable] as const)
            : punct
              ? (['punct', punct] as const)
              : (() => {
                  throw new Error(`cannot read "${rest.slice(0, 20)}" in ${expr}`);
                })();
    tokens.push({ kind, text: match[0] });
    i += match[0].length;
  }
  return tokens;
}

/** The label names of a `{…}` matcher list starting at `tokens[start]` (the `{`), and the index after `}`. */
function matchers(tokens: Token[], start: number, expr: string): { labels: string[]; next: number } {
  const labels: string[] = [];
  let i = start + 1;
  while (tokens[i]?.text !== '}') {
    const label = tokens[i];
    const op = tokens[i + 1];
    const value = tokens[i + 2];
    if (
      label?.kind !== 'ident' ||
      !['=', '!=', '=~', '!~'].includes(op?.text ?? '') ||
      value?.kind !== 'string'
    ) {
      throw new Error(`malformed matcher at "${label?.text}" in ${expr}`);
    }
    labels.push(label.text);
    i += 3;
    if (tokens[i]?.text === ',') i += 1;
  }
  return { labels, next: i + 1 };
}

export function metricUses(expr: string): MetricUses {
  const tokens = tokenize(expr);
  const uses: MetricUses = { selectors: [], groupingLabels: [] };
  for (let i = 0; i < tokens.length;) {
    const token = tokens[i]!;
    const next = tokens[i + 1];
    if (token.kind === 'ident' && GROUPING.has(token.text)) {
      i += 1;
      if (tokens[i]?.text !== '(') continue; // group_left without labels
      for (i += 1; tokens[i] && tokens[i]!.text !== ')'; i += 1) {
        if (tokens[i]!.kind === 'ident') uses.groupingLabels.push(tokens[i]!.text);
      }
      i += 1;
    } else if (token.kind === 'ident' && token.text === 'offset') {
      i += 2; // the duration after it
    } else if (token.kind === 'ident' && KEYWORDS.has(token.text.toLowerCase())) {
      i += 1;
    } else if (token.kind === 'ident' && (next?.text === '(' || AGGREGATIONS.has(token.text))) {
      i += 1; // a function or aggregation
    } else if (token.kind === 'ident') {
      const { labels, next: after } =
        next?.text === '{' ? matchers(tokens, i + 1, expr) : { labels: [], next: i + 1 };
      uses.selectors.push({ metric: token.text, labels });
      i = after;
    } else if (token.text === '{') {
      // A selector without a name: {__name__="…", …}.
      const { labels, next: after } = matchers(tokens, i, expr);
      const name = tokens.slice(i, after).findIndex((t) => t.text === '__name__');
      const metric = name < 0 ? '' : tokens[i + name + 2]!.text.slice(1, -1);
      uses.selectors.push({ metric, labels: labels.filter((l) => l !== '__name__') });
      i = after;
    } else {
      i += 1;
    }
  }
  return uses;
}

/** A scrape in the text exposition format: each sample name with the label names its samples carry. */
export interface Scrape {
  /** `# TYPE` of each family. */
  types: Map<string, string>;
  /** Sample name (a histogram's `_bucket`, `_sum`, `_count` apart) → label names seen on its samples. */
  samples: Map<string, Set<string>>;
}

export function parseScrape(text: string): Scrape {
  const scrape: Scrape = { types: new Map(), samples: new Map() };
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) scrape.types.set(type[1]!, type[2]!);
    if (line.startsWith('#') || line.trim() === '') continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s/.exec(line);
    if (!sample) throw new Error(`unreadable sample line: ${line}`);
    const labels = scrape.samples.get(sample[1]!) ?? new Set<string>();
    for (const match of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)) {
      labels.add(match[1]!);
    }
    scrape.samples.set(sample[1]!, labels);
  }
  return scrape;
}

/** Where a name an expression uses is declared: itself, or the histogram/summary it is a series of. */
function familyOf(scrape: Scrape, metric: string): string | undefined {
  if (scrape.types.has(metric)) return metric;
  const base = /^(.*)_(bucket|sum|count)$/.exec(metric)?.[1];
  const type = base === undefined ? undefined : scrape.types.get(base);
  return type === 'histogram' || type === 'summary' ? base : undefined;
}

/**
 * What an expression uses that the scrape does not have: a metric no family declares, one without a single
 * sample (so its labels cannot be checked: the scenario must produce some), a matcher label its samples
 * lack, or a grouping label none of the expression's metrics carries. Empty when all is there.
 */
export function problemsOf(expr: string, scrape: Scrape): string[] {
  const problems: string[] = [];
  const uses = metricUses(expr);
  if (uses.selectors.length === 0) problems.push(`no metric in ${expr}`);
  const available = new Set<string>();
  for (const { metric, labels } of uses.selectors) {
    if (familyOf(scrape, metric) === undefined) {
      problems.push(`metric ${metric || '(unnamed)'} is not exposed`);
      continue;
    }
    const seen = scrape.samples.get(metric);
    if (!seen) {
      problems.push(`metric ${metric} has no sample in the scrape`);
      continue;
    }
    for (const label of seen) available.add(label);
    for (const label of labels) {
      if (!seen.has(label)) problems.push(`metric ${metric} has no label ${label}`);
    }
  }
  for (const label of uses.groupingLabels) {
    if (!available.has(label))
      problems.push(`no metric of the expression has the label ${label} it groups by`);
  }
  return problems;
}
