// The chaos suite's view of each sluice kind: how to write the n-th manifest of a run and where the emulator
// keeps that kind's cloud resources. One entry per kind of src/kinds/index.ts (a unit test keeps them in step), so a
// new kind joins every chaos scenario by adding its entry here.
import type { Store } from '../../src/emulator/store.ts';
import {
  errorSearch,
  genericWebhook,
  logSource,
  searchAlert,
  tileAlert,
  twoTileDashboard,
  WEBHOOK_SECRET,
  webhookSecretData,
} from '../fixtures/alert.ts';
import { rpeSpec } from '../fixtures/rpe.ts';
import { teamKey } from '../fixtures/api-key.ts';
import { unmarkedName } from '../../src/kinds/api-key/owner-mark.ts';
import { kafkaPipe, kinesisPipe, objectStoragePipe, postgresPipe } from '../fixtures/pipe.ts';

/** A cloud resource as the ownership checks see it. */
export interface CloudResource {
  id: string;
  name: string;
}

export interface ChaosKind {
  kind: string;
  /** Kinds an object of this kind references; the generator gives it the newest object of each. */
  references?: string[];
  /** The spec of object `name`, the `n`-th of this kind in the run; `refs` maps a referenced kind to a name. */
  spec(name: string, n: number, refs: Record<string, string>): Record<string, unknown>;
  /**
   * A spec change that the operator must carry to the cloud (checked by the cloud name it produces); absent
   * for a kind whose cloud fields are all fixed at create.
   */
  rename?(spec: Record<string, unknown>): Record<string, unknown>;
  /** Secrets the manifests reference: created once per run, and their values are scanned for. */
  secrets: Record<string, Record<string, string>>;
  /** This kind's resources in the emulator. */
  cloud(store: Store): CloudResource[];
  /** The name the cloud must show for a spec. */
  cloudName(spec: Record<string, unknown>): string;
}

const PIPE_SOURCES = [kafkaPipe, objectStoragePipe, kinesisPipe, postgresPipe];

/**
 * The Pipe entry, its sources taken in turn: all four in the chaos suite; the benchmarks' services-and-pipes
 * mix takes kafka alone, the issue's measured pipe.
 */
export function pipeKind(
  sources: ReadonlyArray<(name: string) => Record<string, unknown>> = PIPE_SOURCES,
): ChaosKind {
  return {
    kind: 'Pipe',
    references: ['DatabaseService'],
    spec: (name, n, refs) => ({
      ...sources[n % sources.length]!(name.replace(/-/g, '_')),
      serviceRef: { name: refs.DatabaseService },
    }),
    rename: (spec) => ({ name: `${String(spec.name)}_v2` }),
    secrets: {
      'kafka-user': { username: 'chaos-ingest', password: 'chaos-kafka-password-7f3a' },
      's3-key': { accessKeyId: 'AKIACHAOS0000KEY', secretKey: 'chaos-s3-secret-9b1c' },
      'pg-user': { username: 'chaos-pg', password: 'chaos-pg-password-2d4e' },
    },
    cloud: (store) =>
      [...store.pipes.values()].flatMap((pipes) => [...pipes.values()].map(({ id, name }) => ({ id, name }))),
    cloudName: (spec) => String(spec.name),
  };
}

export const CHAOS_KINDS: ChaosKind[] = [
  {
    kind: 'DatabaseService',
    spec: (name) => ({ name: name.replace(/-/g, ' '), provider: 'aws', region: 'us-east-1' }),
    rename: (spec) => ({ name: `${String(spec.name)} v2` }),
    secrets: {},
    cloud: (store) => [...store.services.values()].map(({ id, name }) => ({ id, name })),
    cloudName: (spec) => String(spec.name),
  },
  pipeKind(),
  {
    kind: 'Webhook',
    spec: (name) => genericWebhook(name),
    rename: (spec) => ({ name: `${String(spec.name)}-v2` }),
    secrets: { [WEBHOOK_SECRET]: webhookSecretData('chaos-webhook-token-4c2d') },
    cloud: (store) => [...store.webhooks.values()].map(({ id, name }) => ({ id, name })),
    cloudName: (spec) => String(spec.name),
  },
  {
    kind: 'Source',
    spec: (name) => logSource(name),
    rename: (spec) => ({ name: `${String(spec.name)}-v2` }),
    secrets: {},
    cloud: (store) => [...store.sources.values()].map(({ id, name }) => ({ id, name })),
    cloudName: (spec) => String(spec.name),
  },
  {
    kind: 'SavedSearch',
    spec: (name) => errorSearch(name),
    rename: (spec) => ({ name: `${String(spec.name)}-v2` }),
    secrets: {},
    cloud: (store) => [...store.savedSearches.values()].map(({ id, name }) => ({ id, name })),
    cloudName: (spec) => String(spec.name),
  },
  {
    kind: 'Dashboard',
    spec: (name) => twoTileDashboard(name),
    rename: (spec) => ({ name: `${String(spec.name)}-v2` }),
    secrets: {},
    cloud: (store) => [...store.dashboards.values()].map(({ id, name }) => ({ id, name })),
    cloudName: (spec) => String(spec.name),
  },
  {
    kind: 'Alert',
    spec: (name, n) => (n % 2 ? searchAlert : tileAlert)(name),
    rename: (spec) => ({ name: `${String(spec.name)}-v2` }),
    secrets: {},
    cloud: (store) => [...store.alerts.values()].map(({ id, name }) => ({ id, name: name ?? '' })),
    cloudName: (spec) => String(spec.name),
  },
  {
    // One per service (a second one is a Conflict): each references a service of its own.
    kind: 'QueryEndpoint',
    references: ['DatabaseService'],
    spec: (name, _n, refs) => ({
      serviceRef: { name: refs.DatabaseService },
      roles: ['sql_console_read_only'],
      allowedOrigins: `${name}.example.com`,
    }),
    rename: (spec) => ({ allowedOrigins: `v2.${String(spec.allowedOrigins)}` }),
    secrets: {},
    cloud: (store) =>
      [...store.queryEndpoints.values()].map(({ id, allowedOrigins }) => ({
        id,
        name: allowedOrigins ?? '',
      })),
    cloudName: (spec) => String(spec.allowedOrigins),
  },
  {
    kind: 'ReversePrivateEndpoint',
    references: ['DatabaseService'],
    spec: (name, n, refs) =>
      rpeSpec(n % 2 ? 'vpcResource' : 'msk', refs.DatabaseService!, { description: name }),
    secrets: {},
    cloud: (store) =>
      [...store.rpes.values()].flatMap((rpes) =>
        [...rpes.values()].map(({ id, description }) => ({ id, name: description })),
      ),
    cloudName: (spec) => String(spec.description),
  },
  {
    // Its credentials Secret is written by sluice, so a run creates none for it.
    kind: 'ApiKey',
    spec: (name) => teamKey(name.slice(0, 40)),
    secrets: {},
    // The cloud name carries sluice's owner mark after the spec's name: the spec's part is what must match.
    cloud: (store) => [...store.apiKeys.values()].map(({ id, name }) => ({ id, name: unmarkedName(name) })),
    cloudName: (spec) => String(spec.name),
  },
];

export interface Manifest {
  kind: string;
  name: string;
  spec: Record<string, unknown>;
}

/**
 * `count` manifests, kinds in turn (the registry order puts referenced kinds first); each reference names the
 * newest object of that kind generated before it, so every object's reference exists in the run.
 */
export function generateManifests(
  count: number,
  kinds: ChaosKind[] = CHAOS_KINDS,
  prefix = 'chaos',
): Manifest[] {
  const newest: Record<string, string> = {};
  const perKind: Record<string, number> = {};
  const manifests: Manifest[] = [];
  for (let i = 0; manifests.length < count; i++) {
    const kind = kinds[i % kinds.length]!;
    if (kind.references?.some((ref) => newest[ref] === undefined)) continue;
    const n = (perKind[kind.kind] = (perKind[kind.kind] ?? -1) + 1);
    const name = `${prefix}-${kind.kind.toLowerCase()}-${n}`;
    manifests.push({ kind: kind.kind, name, spec: kind.spec(name, n, newest) });
    newest[kind.kind] = name;
  }
  return manifests;
}

export const chaosKind = (kind: string): ChaosKind => {
  const found = CHAOS_KINDS.find((k) => k.kind === kind);
  if (!found) throw new Error(`no chaos generator for kind ${kind}: add one to tools/chaos/kinds.ts`);
  return found;
};
