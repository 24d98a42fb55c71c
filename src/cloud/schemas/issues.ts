import type { z } from 'zod';

/**
 * Turns zod issues into the sentences the APIs answer with: each one starts with the offending field's path
 * (`ipAccessList[0].source must be an IP address or CIDR range`), so a user always learns which field to fix.
 * Schemas only carry messages for their own rules; zod's built-in checks are phrased here, once.
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const field = fieldPath(issue.path);
  const phrase = phraseOf(issue);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${joinPath(field, key)} ${phrase}`).join('; ');
  }
  return field ? `${field} ${phrase}` : phrase;
}

/** The first issue, which is what the API reports (one error per response, like the real services). */
export function describeFirstIssue(error: z.ZodError): string {
  const first = error.issues[0];
  return first ? describeIssue(first) : 'request body is invalid';
}

export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out = joinPath(out, String(segment));
  }
  return out;
}

function joinPath(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}

/** zod's own messages start like this; anything else was written by a schema for its rule and is kept. */
const ZOD_DEFAULT_MESSAGE = /^(Invalid|Too (big|small)|Unrecognized)/;

function phraseOf(issue: z.core.$ZodIssue): string {
  if (issue.message && !ZOD_DEFAULT_MESSAGE.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      // zod leaves `input` off issues unless asked; its message says what was received instead.
      if (/received undefined$/.test(issue.message)) return 'is required';
      return `must be ${article(issue.expected)}`;
    case 'too_small':
      return boundPhrase(issue.origin, 'least', issue.minimum, issue.inclusive);
    case 'too_big':
      return boundPhrase(issue.origin, 'most', issue.maximum, issue.inclusive);
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'uuid' ? 'must be a uuid' : `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return issue.message && !issue.message.startsWith('Unrecognized key')
        ? issue.message
        : 'is not a known field';
    case 'invalid_union':
      return 'does not match any allowed shape';
    default:
      return issue.message;
  }
}

function boundPhrase(
  origin: string,
  side: 'least' | 'most',
  bound: number | bigint,
  inclusive = true,
): string {
  const value = Number(bound);
  switch (origin) {
    case 'string':
      return side === 'least' && value === 1
        ? 'must not be empty'
        : `must have at ${side} ${value} characters`;
    case 'array':
    case 'set':
      return `must have at ${side} ${value} entries`;
    default:
      if (inclusive) return `must be at ${side} ${value}`;
      return side === 'least' ? `must be greater than ${value}` : `must be less than ${value}`;
  }
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  if (expected === 'array' || expected === 'object') return `an ${expected}`;
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
