// What the benchmarks read out of the emulator's call log: calls by route, which reads covered which cloud
// object (a GET of it, or a list it was in), how long each object went without such a read, and the least time
// a burst of creates can take under the cloud's quota. Pure: the log and the objects are passed in.
import type { CallRecord } from '../src/emulator/call-log.ts';

/** A cloud object as the coverage sees it: its id, and for a pipe or endpoint the service it belongs to. */
export interface CloudObject {
  kind: 'service' | 'pipe' | 'rpe' | 'alert';
  id: string;
  serviceId?: string;
}

/** What one answered GET read: a single object, or every object of a list. */
type Read =
  | { single: string }
  | { list: 'services' }
  | { list: 'alerts' }
  | { list: 'pipes' | 'rpes'; serviceId: string };

const ORG = '^/v1/organizations/[^/]+/services';
const READS: Array<[RegExp, (match: RegExpExecArray) => Read]> = [
  [new RegExp(`${ORG}$`), () => ({ list: 'services' })],
  [new RegExp(`${ORG}/([^/]+)$`), (m) => ({ single: m[1]! })],
  [new RegExp(`${ORG}/([^/]+)/pipes$`), (m) => ({ list: 'pipes', serviceId: m[1]! })],
  [new RegExp(`${ORG}/[^/]+/pipes/([^/]+)$`), (m) => ({ single: m[1]! })],
  [new RegExp(`${ORG}/([^/]+)/pipesReversePrivateEndpoints$`), (m) => ({ list: 'rpes', serviceId: m[1]! })],
  [new RegExp(`${ORG}/[^/]+/pipesReversePrivateEndpoints/([^/]+)$`), (m) => ({ single: m[1]! })],
  [/^\/api\/v2\/alerts$/, () => ({ list: 'alerts' })],
  [/^\/api\/v2\/alerts\/([^/]+)$/, (m) => ({ single: m[1]! })],
];

function readOf(call: CallRecord): Read | undefined {
  if (call.method !== 'GET' || call.status !== 200) return undefined;
  for (const [pattern, read] of READS) {
    const match = pattern.exec(call.path);
    if (match) return read(match);
  }
  return undefined;
}

const LIST_OF: Record<CloudObject['kind'], string> = {
  service: 'services',
  pipe: 'pipes',
  rpe: 'rpes',
  alert: 'alerts',
};

/**
 * Whether `call` read `object`: an answered GET of the object itself, or an answered list the object is part
 * of (the organization's services, its service's pipes or endpoints, the alerts). A services list is taken to
 * cover every service: the log keeps no query string, so a tag filter is not seen.
 */
export function covers(call: CallRecord, object: CloudObject): boolean {
  const read = readOf(call);
  if (!read) return false;
  if ('single' in read) return read.single.toLowerCase() === object.id.toLowerCase();
  if (read.list !== LIST_OF[object.kind]) return false;
  return !('serviceId' in read) || read.serviceId.toLowerCase() === object.serviceId?.toLowerCase();
}

export interface Coverage {
  objects: number;
  /** Objects read at least once in every `intervalMs` of the window. */
  checked: number;
  /** The longest time any object went without a read inside the window. */
  maxGapMs: number;
  /** Some of the objects that were not (at most 10), for the report. */
  missed: CloudObject[];
}

/**
 * Drift coverage over the window [fromMs, toMs]: an object is drift-checked within each interval when no stretch
 * of the window longer than `intervalMs` passes without a read covering it. A stretch runs from the object's last
 * read at or before `fromMs` (or `fromMs`, when the log has none) to the next read, and so on to `toMs`.
 */
export function driftCoverage(
  objects: readonly CloudObject[],
  calls: readonly CallRecord[],
  { fromMs, toMs, intervalMs }: { fromMs: number; toMs: number; intervalMs: number },
): Coverage {
  // Index the reads once: by single id, and by list (a list's key names the service it is of).
  const readsAt = new Map<string, number[]>();
  const note = (key: string, at: number) => {
    const times = readsAt.get(key);
    if (times) times.push(at);
    else readsAt.set(key, [at]);
  };
  for (const call of calls) {
    const read = readOf(call);
    if (!read) continue;
    const at = Date.parse(call.timestamp);
    if ('single' in read) note(`id:${read.single.toLowerCase()}`, at);
    else note(`list:${read.list}:${'serviceId' in read ? read.serviceId.toLowerCase() : ''}`, at);
  }
  let checked = 0;
  let maxGapMs = 0;
  const missed: CloudObject[] = [];
  for (const object of objects) {
    const listKey = `list:${LIST_OF[object.kind]}:${object.kind === 'pipe' || object.kind === 'rpe' ? (object.serviceId ?? '').toLowerCase() : ''}`;
    const times = [...(readsAt.get(`id:${object.id.toLowerCase()}`) ?? []), ...(readsAt.get(listKey) ?? [])]
      .filter((at) => at <= toMs)
      .sort((a, b) => a - b);
    let previous = times.filter((at) => at <= fromMs).at(-1) ?? fromMs;
    let longest = 0;
    for (const at of times) {
      if (at <= fromMs) continue;
      longest = Math.max(longest, at - previous);
      previous = at;
    }
    longest = Math.max(longest, toMs - previous);
    maxGapMs = Math.max(maxGapMs, longest);
    if (longest <= intervalMs) checked++;
    else if (missed.length < 10) missed.push(object);
  }
  return { objects: objects.length, checked, maxGapMs, missed };
}

/** Answered calls counted by `<METHOD> <route>`, the organization prefix dropped; 429s apart. */
export function callsByRoute(calls: readonly CallRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls) {
    if (call.status === 429) continue;
    const key = `${call.method} ${call.route.replace('/v1/organizations/:organizationId', '')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Map([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

export interface ProvisionBound {
  /** The creates back to back at the quota's average rate. */
  createsMs: number;
  /** Then the last service's provisioning, and after it its pipe's. */
  serviceMs: number;
  pipeMs: number;
  totalMs: number;
  /**
   * The same with the creates as a fixed window lets them through (the first `requests` at once, the last at
   * the start of its window): below `totalMs` by up to one window, and for a burst within one window by the
   * whole of `createsMs`. Reported beside the bound the targets are set against.
   */
  fixedWindowTotalMs: number;
}

/**
 * The least time to all Ready for services each with a pipe on it, under a quota of `requests` per `windowMs`:
 * every create sent back to back at the quota's average rate (`creates` ÷ rate), then the last service's
 * provisioning (its state steps after the first, each `stepMs`) and, the pipe being creatable only on a running
 * service, its pipe's. Reads and the operator's own time are not in it.
 */
export function provisionLowerBound({
  creates,
  requests,
  windowMs,
  stepMs,
  serviceSteps,
  pipeSteps,
}: {
  creates: number;
  requests: number;
  windowMs: number;
  stepMs: number;
  /** The states a create walks through, the first taken at the create (the emulator's plan). */
  serviceSteps: readonly string[];
  pipeSteps: readonly string[];
}): ProvisionBound {
  const createsMs = (creates * windowMs) / requests;
  const serviceMs = (serviceSteps.length - 1) * stepMs;
  const pipeMs = (pipeSteps.length - 1) * stepMs;
  const lastCreateAtMs = Math.floor(Math.max(0, creates - 1) / requests) * windowMs;
  return {
    createsMs,
    serviceMs,
    pipeMs,
    totalMs: createsMs + serviceMs + pipeMs,
    fixedWindowTotalMs: lastCreateAtMs + serviceMs + pipeMs,
  };
}
