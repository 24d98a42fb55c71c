import { bodyLeaves } from '../managed/index.ts';
import type { PlanAction, PlannedResource } from './planner.ts';
import type { PlannedCall } from './sensitive.ts';
import type { FieldChange } from '../managed/index.ts';

/** `-o json`: one entry per object, the calls with method, path and (masked) body. */
export function renderJson(resources: readonly PlannedResource[]): string {
  const entries = resources.map(({ kind, namespace, name, action, calls, changed, changes, reason }) => ({
    kind,
    namespace,
    name,
    action,
    calls: calls.map(({ method, path, body, credentials }) => ({
      method,
      path,
      ...(body === undefined ? {} : { body }),
      ...(credentials ? { credentials: true } : {}),
    })),
    ...(changed.length > 0 ? { changed, changes } : {}),
    reason: reason ?? null,
  }));
  return `${JSON.stringify({ resources: entries }, null, 2)}\n`;
}

/** The mark a block starts with and the one on each field a call sets, by action. */
const MARKS: Record<PlanAction, { block: string; field: string }> = {
  create: { block: '+', field: '+' },
  adopt: { block: '<', field: '~' },
  update: { block: '~', field: '~' },
  none: { block: '=', field: ' ' },
  blocked: { block: '!', field: ' ' },
  error: { block: 'x', field: ' ' },
  delete: { block: '-', field: ' ' },
  orphan: { block: '-', field: ' ' },
};

/**
 * Text that reads like a review comment: one block per object, its calls with the fields each sets marked
 * (`+` in a create, `~` in an update), then a one-line summary.
 */
export function renderText(resources: readonly PlannedResource[]): string {
  const blocks = resources.map(renderBlock);
  return `${[...blocks, summary(resources)].join('\n\n')}\n`;
}

function renderBlock(resource: PlannedResource): string {
  const { kind, namespace, name, action, calls, changed, reason } = resource;
  const mark = MARKS[action];
  const what = `${kind} ${namespace}/${name}`;
  const headline = {
    create: `${what} will be created`,
    adopt: `${what} will be taken back${changed.length > 0 ? `, then updated (${changed.join(', ')})` : ''}`,
    update: `${what} will be updated${changed.length > 0 ? ` (${changed.join(', ')})` : ''}`,
    none: `${what}: no change`,
    blocked: `${what} is blocked`,
    error: `${what} could not be planned`,
    delete: `${what} will be deleted with its cloud object`,
    orphan: `${what} will be deleted; its cloud object stays`,
  }[action];
  const lines = [`${mark.block} ${headline}`];
  if (reason) lines.push(`    ${reason}`);
  for (const change of resource.changes) lines.push(`    ~ ${renderChange(change)}`);
  for (const call of calls) lines.push(...renderCall(call, mark.field));
  return lines.join('\n');
}

/** `numReplicas: 4 → 5`; a list `ipAccessList: + {…} - {…}`; a field neither side names, its name. */
export function renderChange({ field, from, to, added, removed }: FieldChange): string {
  if (added !== undefined || removed !== undefined) {
    const entries = [
      ...(added ?? []).map((entry) => `+ ${JSON.stringify(entry)}`),
      ...(removed ?? []).map((entry) => `- ${JSON.stringify(entry)}`),
    ];
    return `${field}: ${entries.length > 0 ? entries.join(' ') : 'reordered'}`;
  }
  if (from === undefined && to === undefined) return field;
  const shown = (value: unknown) => (value === undefined ? '(not set)' : JSON.stringify(value));
  return `${field}: ${shown(from)} → ${shown(to)}`;
}

function renderCall(call: PlannedCall, fieldMark: string): string[] {
  const notes = [
    ...(call.credentials ? ['credentials change'] : []),
    ...(/\/state$/.test(call.path) ? ['state command'] : []),
  ];
  const lines = [`    ${call.method} ${call.path}${notes.length > 0 ? `  (${notes.join(', ')})` : ''}`];
  for (const [field, value] of bodyLeaves(call.body)) {
    lines.push(`      ${fieldMark} ${field}: ${JSON.stringify(value)}`);
  }
  return lines;
}

function summary(resources: readonly PlannedResource[]): string {
  const count = (action: PlanAction) => resources.filter((r) => r.action === action).length;
  const parts = [
    `${count('create')} to create`,
    ...(count('adopt') > 0 ? [`${count('adopt')} to take back`] : []),
    `${count('update')} to update`,
    `${count('none')} unchanged`,
    ...(count('delete') > 0 ? [`${count('delete')} to delete`] : []),
    ...(count('orphan') > 0 ? [`${count('orphan')} to orphan`] : []),
    ...(count('blocked') > 0 ? [`${count('blocked')} blocked`] : []),
    ...(count('error') > 0 ? [`${count('error')} not planned (error)`] : []),
  ];
  return `Plan: ${parts.join(', ')}.`;
}

/**
 * `terraform plan -detailed-exitcode`: 1 when an object could not be planned, 2 when anything would be
 * created, updated or is blocked (the input does not converge as it is), 0 when nothing changes.
 */
export function exitCodeOf(resources: readonly PlannedResource[]): 0 | 1 | 2 {
  if (resources.some((r) => r.action === 'error')) return 1;
  return resources.some((r) => r.action !== 'none') ? 2 : 0;
}
