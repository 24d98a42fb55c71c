// What a chaos run is judged by: cloud resources against objects, Retry-After against the call log, and a
// secret scan over everything the run produced. Pure functions, so they are unit tested on their own.
import type { CallRecord } from '../../src/emulator/call-log.ts';
import type { CloudResource } from './kinds.ts';

export interface ObjectState {
  kind: string;
  name: string;
  /** The cloud name the object's current spec asks for. */
  wantName: string;
  id?: string;
  ready: boolean;
}

export interface Ownership {
  /** Cloud resources of one object beyond the first, and resources claimed by more than one object. */
  duplicates: string[];
  /** Cloud resources that no object's status.id names. */
  orphans: string[];
  /** Objects whose status.id is unset or names nothing in the cloud, or whose cloud name is not the spec's. */
  mismatched: string[];
}

/** Every cloud resource must belong to exactly one object, and every object to exactly one resource. */
export function ownership(objects: ObjectState[], cloud: Map<string, CloudResource[]>): Ownership {
  const result: Ownership = { duplicates: [], orphans: [], mismatched: [] };
  for (const [kind, resources] of cloud) {
    const owners = new Map<string, ObjectState[]>();
    for (const object of objects.filter((o) => o.kind === kind && o.id !== undefined))
      owners.set(object.id!, [...(owners.get(object.id!) ?? []), object]);
    const byName = new Map<string, number>();
    for (const resource of resources) {
      const claimed = owners.get(resource.id)?.length ?? 0;
      if (claimed === 0) result.orphans.push(`${kind} ${resource.id} (${resource.name})`);
      if (claimed > 1) result.duplicates.push(`${kind} ${resource.id} claimed by ${claimed} objects`);
      byName.set(resource.name, (byName.get(resource.name) ?? 0) + 1);
    }
    for (const [name, count] of byName)
      if (count > 1) result.duplicates.push(`${kind} "${name}" exists ${count} times`);
    const byId = new Map(resources.map((r) => [r.id, r]));
    for (const object of objects.filter((o) => o.kind === kind)) {
      const resource = object.id === undefined ? undefined : byId.get(object.id);
      if (!resource) result.mismatched.push(`${kind} ${object.name}: status.id ${object.id ?? 'unset'}`);
      else if (resource.name !== object.wantName)
        result.mismatched.push(
          `${kind} ${object.name}: cloud name "${resource.name}", spec "${object.wantName}"`,
        );
    }
  }
  return result;
}

/**
 * Calls of a key that arrived while a 429 told that key to wait. `graceMs` after the 429 is allowed: requests
 * already in flight when it was answered cannot know of it.
 */
export function retryAfterViolations(
  calls: Pick<CallRecord, 'key' | 'status' | 'timestamp' | 'method' | 'path'>[],
  retryAfterMs: number,
  graceMs = 200,
): string[] {
  const violations: string[] = [];
  const limited = calls.filter((c) => c.status === 429);
  for (const refusal of limited) {
    const from = Date.parse(refusal.timestamp) + graceMs;
    const until = Date.parse(refusal.timestamp) + retryAfterMs;
    for (const call of calls) {
      const at = Date.parse(call.timestamp);
      if (call.key === refusal.key && at > from && at < until)
        violations.push(
          `${call.method} ${call.path} ${at - from + graceMs} ms after a 429 (${refusal.timestamp})`,
        );
    }
  }
  return violations;
}

/** Where each secret value (long enough to be unmistakable) occurs in the texts: `<source>: <first chars>…`. */
export function secretScan(texts: Record<string, string>, secrets: string[]): string[] {
  const findings: string[] = [];
  for (const secret of new Set(secrets.filter((s) => s.length >= 8)))
    for (const [source, text] of Object.entries(texts))
      if (text.includes(secret)) findings.push(`${source}: ${secret.slice(0, 3)}…`);
  return findings;
}
