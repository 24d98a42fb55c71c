import type { CelRule } from './meta.ts';

// Connection Secret templates in External Secrets Operator's syntax: `{{ .key }}` for a connection detail and
// one filter, `urlquery`. The same patterns check a template at admission (CEL, RE2) and when rendering, so
// what the apiserver accepts always renders. Written without backslashes so they need no escaping in CEL.

/** The connection details a template may name: the primary endpoint's, and one host/port per protocol. */
export const TEMPLATE_DETAILS = [
  'username',
  'password',
  'host',
  'port',
  '<protocol>_host',
  '<protocol>_port',
];
const DETAIL = '(username|password|host|port|[a-z][a-z0-9]*_host|[a-z][a-z0-9]*_port)';
/** A Secret key the connection details are written under: a template key named so would overwrite one. */
export const CONNECTION_KEY = `^${DETAIL}$`;

/** Anything between `{{` and `}}`: each one must be a known placeholder with a known filter. */
export const PLACEHOLDER = '[{][{][^}]*[}][}]';
/** Text outside placeholders: anything but `{{` (a `{` alone is text). */
const TEXT = '[^{]|[{][^{]';
/** One placeholder naming a known detail (with any filter: that is the other rule's). */
const DETAIL_PLACEHOLDER = `[{][{] *[.]${DETAIL} *([|][^}]*)?[}][}]`;
/** One placeholder with no filter or the one filter there is. */
const FILTER_PLACEHOLDER = '[{][{][^|}]*([|] *urlquery *)?[}][}]';
/** A whole value whose every placeholder names a known detail. */
export const KNOWN_DETAILS = `^(${TEXT}|${DETAIL_PLACEHOLDER})*[{]?$`;
/** A whole value whose every placeholder has a known filter or none. */
export const KNOWN_FILTERS = `^(${TEXT}|${FILTER_PLACEHOLDER})*[{]?$`;

/** Bounds that keep the CEL rules within the apiserver's cost budget. */
export const MAX_TEMPLATE_KEYS = 16;
export const MAX_TEMPLATE_LENGTH = 400;

/** The first placeholder of the value that `pattern` (a whole-placeholder form of a rule) refuses, in CEL. */
const offending = (pattern: string) =>
  `self.findAll('${PLACEHOLDER}').filter(p, !p.matches('${pattern}'))[0]`;

/** The admission rules on one template value; the apiserver names its key in the field path. */
export const TEMPLATE_RULES: CelRule[] = [
  {
    rule: `self.matches('${KNOWN_DETAILS}')`,
    message: `names an unknown placeholder; known: .${TEMPLATE_DETAILS.join(', .')}`,
    messageExpression: `'unknown placeholder ' + ${offending(`^${DETAIL_PLACEHOLDER}$`)} + '; known: .${TEMPLATE_DETAILS.join(', .')}'`,
  },
  {
    rule: `self.matches('${KNOWN_FILTERS}')`,
    message: 'names an unknown filter; the only filter is urlquery',
    messageExpression: `'unknown filter in ' + ${offending(`^${FILTER_PLACEHOLDER}$`)} + '; the only filter is urlquery'`,
  },
];

/** Why template key `key` is refused, or undefined: the same words at admission and in `sluice plan`. */
export function templateKeyProblem(key: string): string | undefined {
  if (!new RegExp(CONNECTION_KEY).test(key)) return undefined;
  return `template key ${key} is a connection key, which the template must not overwrite; name it otherwise`;
}

/** The admission rule on the template's keys, naming the first that is a connection key. */
export const TEMPLATE_KEY_RULE: CelRule = {
  rule: `self.all(k, !k.matches('${CONNECTION_KEY}'))`,
  message: 'a template key is a connection key, which the template must not overwrite',
  messageExpression: `'template key ' + self.filter(k, k.matches('${CONNECTION_KEY}'))[0] + ' is a connection key, which the template must not overwrite; name it otherwise'`,
};

/** Go's `url.QueryEscape`, which ESO's `urlquery` is: spaces as `+`, all but `A-Za-z0-9-_.~` escaped. */
export function urlquery(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Why a template value would not render, or undefined: the first unknown placeholder or filter. */
export function templateProblem(template: string): string | undefined {
  const first = (pattern: string) =>
    template.match(new RegExp(PLACEHOLDER, 'g'))?.find((p) => !new RegExp(`^${pattern}$`).test(p)) ??
    template;
  if (!new RegExp(KNOWN_DETAILS).test(template)) return `unknown placeholder ${first(DETAIL_PLACEHOLDER)}`;
  if (!new RegExp(KNOWN_FILTERS).test(template)) return `unknown filter in ${first(FILTER_PLACEHOLDER)}`;
  return undefined;
}

/**
 * Renders every template key over the connection details. A key whose template names a detail the service
 * does not have (`mysql_host` with mysql off) is left out rather than written half; the caller learns which.
 */
export function renderTemplate(
  template: Readonly<Record<string, string>>,
  details: Readonly<Record<string, string>>,
): { values: Record<string, string>; unresolved: string[] } {
  const values: Record<string, string> = {};
  const unresolved: string[] = [];
  for (const [key, text] of Object.entries(template)) {
    // Admission refuses such a key; one stored before it did must still never overwrite a connection value.
    if (templateKeyProblem(key)) continue;
    const problem = templateProblem(text);
    if (problem) throw new Error(`connectionSecret.template.${key}: ${problem}`);
    let missing = false;
    const rendered = text.replace(new RegExp(PLACEHOLDER, 'g'), (placeholder) => {
      const [, detail, filter] = /^\{\{ *\.([a-z0-9_]+) *(?:\| *([a-z]+) *)?\}\}$/.exec(placeholder)!;
      const value = details[detail!];
      if (value === undefined) {
        missing = true;
        return '';
      }
      return filter === 'urlquery' ? urlquery(value) : value;
    });
    if (missing) unresolved.push(key);
    else values[key] = rendered;
  }
  return { values, unresolved };
}
