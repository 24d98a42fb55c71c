import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_POLICY } from '../../../../src/kinds/alert/schema.ts';
import { DASHBOARD_POLICY } from '../../../../src/kinds/dashboard/schema.ts';
import { SAVED_SEARCH_POLICY } from '../../../../src/kinds/saved-search/schema.ts';
import { SOURCE_POLICY } from '../../../../src/kinds/source/schema.ts';
import { WEBHOOK_POLICY } from '../../../../src/kinds/webhook/schema.ts';
import { API_KEY_POLICY } from '../../../../src/kinds/api-key/schema.ts';
import { DATABASE_SERVICE_POLICY } from '../../../../src/kinds/database-service/schema.ts';
import { PIPE_POLICY } from '../../../../src/kinds/pipe/schema.ts';
import { QUERY_ENDPOINT_POLICY } from '../../../../src/kinds/query-endpoint/schema.ts';
import { REVERSE_PRIVATE_ENDPOINT_POLICY } from '../../../../src/kinds/reverse-private-endpoint/schema.ts';
import type { PolicyFields } from '../../../../src/managed/index.ts';
import { repoRoot } from '../../../../tools/cluster/assets.ts';
import { kubectlApply } from '../../../../tools/cluster/install.ts';
import {
  alertOnTile,
  errorSearch,
  errorSearchOf,
  genericWebhook,
  logSource,
  searchAlert,
  tileAlert,
  twoTileDashboard,
} from '../../../../tools/fixtures/alert.ts';
import { teamKey } from '../../../../tools/fixtures/api-key.ts';
import { kafkaPipe, postgresPipe } from '../../../../tools/fixtures/pipe.ts';
import { RPE_SPECS } from '../../../../tools/fixtures/rpe.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import { edit, SERVICE_ID } from './admission.ts';
import { startOperatorEnv, type OperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';
import { planDocuments, planInProcess } from '../plan-in-process.ts';

type Spec = Record<string, unknown>;

/** One spec the apiserver refuses by a CEL rule: `rule` is a piece of the rule's text, `says` of its message. */
interface Case {
  kind: string;
  what: string;
  rule: string;
  says: string;
  spec: Spec;
  /** For a rule that compares with the stored object: the spec the object is created with first. */
  stored?: Spec;
}

const service = { name: 'analytics', provider: 'aws', region: 'us-east-1' };
const horizontal = {
  ...service,
  autoscalingMode: 'horizontal',
  minReplicas: 2,
  maxReplicas: 6,
  minReplicaMemoryGb: 16,
  maxReplicaMemoryGb: 16,
};
const kafka = kafkaPipe('orders') as Spec & { fieldMappings: unknown[] };
const queryEndpoint = {
  serviceRef: { name: 'analytics' },
  roles: ['sql_console_read_only'],
  openApiKeys: ['k'],
};
const { vpcEndpointService, vpcResource, msk } = RPE_SPECS;
const tile = tileAlert('cpu');
const search = searchAlert('errors');
const webhook = genericWebhook('on-call');
const dashboard = twoTileDashboard('ingest');
const savedSearch = errorSearch('errors');
const source = logSource('logs');
const tileByName = alertOnTile('cpu', 'ingest', 'errors', 'on-call');
const apiKey = teamKey('team-a');
const window = { name: 'business hours', weekdays: [1, 2, 3, 4, 5], startHourUtc: 8, endHourUtc: 18 };
const without = (spec: Spec, field: string) => edit(spec, field, undefined);

const VALID: Record<string, Spec> = {
  DatabaseService: service,
  Pipe: kafka,
  QueryEndpoint: queryEndpoint,
  ReversePrivateEndpoint: msk,
  Alert: tile,
  ApiKey: apiKey,
  Webhook: webhook,
  SavedSearch: savedSearch,
  Dashboard: dashboard,
  Source: source,
};

const POLICIES: Record<string, PolicyFields> = {
  DatabaseService: DATABASE_SERVICE_POLICY,
  Pipe: PIPE_POLICY,
  QueryEndpoint: QUERY_ENDPOINT_POLICY,
  ReversePrivateEndpoint: REVERSE_PRIVATE_ENDPOINT_POLICY,
  Alert: ALERT_POLICY,
  ApiKey: API_KEY_POLICY,
  Webhook: WEBHOOK_POLICY,
  SavedSearch: SAVED_SEARCH_POLICY,
  Dashboard: DASHBOARD_POLICY,
  Source: SOURCE_POLICY,
};

const CASES: Case[] = [
  ...[
    ['an IP access entry that is no IP', 'isIP(self)', 'IP address or CIDR', edit(service, 'ipAccessList', [{ source: 'x' }])],
    ['an unknown template placeholder', '(username|password|host|port', 'unknown placeholder', edit(service, 'connectionSecret', { template: { URL: '{{ .user }}' } })],
    ['an unknown template filter', 'urlquery', 'unknown filter', edit(service, 'connectionSecret', { template: { URL: '{{ .password | b64enc }}' } })],
    ['a template key with a space', "k.matches('^[-._a-zA-Z0-9]+$')", 'template', edit(service, 'connectionSecret', { template: { 'a b': 'x' } })],
    ['a template key that is a connection key', "self.all(k, !k.matches('^(username|password", 'template key password is a connection key', edit(service, 'connectionSecret', { template: { password: '{{ .password | urlquery }}' } })],
    ['a region of another provider', "'gcp' : self.region in", 'spec.region us-east-1 is a region of aws, not of spec.provider gcp', { ...service, provider: 'gcp' }],
    ['isReadonly without a warehouse', 'self.isReadonly', 'isReadonly can be true only when dataWarehouseId is given', { ...service, isReadonly: true }],
    ['byocId without fixed memory', 'has(self.byocId)', 'required with byocId', { ...service, byocId: 'b-1', minReplicaMemoryGb: 48 }],
    ['replica memory min above max', 'self.minReplicaMemoryGb <= self.maxReplicaMemoryGb', 'minReplicaMemoryGb must not exceed maxReplicaMemoryGb', { ...service, minReplicaMemoryGb: 64, maxReplicaMemoryGb: 32 }],
    ['total memory min above max', 'self.minTotalMemoryGb <= self.maxTotalMemoryGb', 'minTotalMemoryGb must not exceed maxTotalMemoryGb', { ...service, minTotalMemoryGb: 96, maxTotalMemoryGb: 48 }],
    ['one replica for the first service', 'self.numReplicas >=', 'numReplicas must be at least 2', { ...service, numReplicas: 1 }],
    ['replica bounds without horizontal', "(!has(self.minReplicas) && !has(self.maxReplicas))", 'allowed only when autoscalingMode is horizontal', { ...service, minReplicas: 2, maxReplicas: 4 }],
    ['horizontal without maxReplicas', 'self.minReplicas <= self.maxReplicas', 'horizontal needs minReplicas and maxReplicas', without(horizontal, 'maxReplicas')],
    ['horizontal with unequal memory', 'self.minReplicaMemoryGb == self.maxReplicaMemoryGb', 'they must be equal', { ...horizontal, maxReplicaMemoryGb: 32 }],
    ['a release channel on development', "self.tier != 'development'", 'releaseChannel is allowed only for production services', { ...service, tier: 'development', releaseChannel: 'fast' }],
    ['a backup period the cloud does not offer', 'self in [6, 8, 12, 16, 20, 24]', 'periodInHours must be one of 6, 8, 12, 16, 20, 24', { ...service, backups: { periodInHours: 7 } }],
    ['a backup start time with a period under a day', 'self.periodInHours == 24', 'periodInHours must be 24 (or left out) when startTime is set', { ...service, backups: { periodInHours: 12, startTime: '02:00' } }],
    ['a scaling window that ends when it starts', 'self.startHourUtc != self.endHourUtc', 'endHourUtc must differ from startHourUtc', { ...service, scalingSchedule: [{ ...window, endHourUtc: 8, minReplicas: 3, maxReplicas: 3 }] }],
    ['a vertical scaling window with a replica range', "self.autoscalingMode == 'horizontal') || !has(self.minReplicas) || self.minReplicas == self.maxReplicas", 'maxReplicas must equal minReplicas for a vertical entry (a fixed replica count)', { ...service, scalingSchedule: [{ ...window, minReplicas: 2, maxReplicas: 4 }] }],
    ['a scaling window with one memory bound', 'has(self.minReplicaMemoryGb) == has(self.maxReplicaMemoryGb)', 'maxReplicaMemoryGb must be set together with minReplicaMemoryGb', { ...service, scalingSchedule: [{ ...window, minReplicaMemoryGb: 16 }] }],
    ['a restore both by name and by backup id', '!has(self.restore) || !has(self.backupId)', 'restore.fromBackupOf and backupId cannot both be set', { ...service, restore: { fromBackupOf: 'orders' }, backupId: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc' }],
    ['an upgrade window starting off the 6-hour grid', 'self in [0, 6, 12, 18]', 'startHourUtc must be one of 0, 6, 12, 18', { ...service, upgradeWindow: { weekday: 3, startHourUtc: 7 } }],
  ].map(([what, rule, says, spec]) => ({ kind: 'DatabaseService', what, rule, says, spec }) as Case),
  ...[
    ['an offset timestamp without from_timestamp', 'has(self.timestamp)', 'timestamp', edit(kafka, 'source.kafka.offset', { strategy: 'from_latest', timestamp: '2026-01-31T14:05' })],
    ['two sources', 'filter(x, x).size() == 1', 'exactly one of', edit(kafka, 'source.objectStorage', { url: 'https://b.s3.amazonaws.com/x/*.csv', format: 'CSV', type: 's3' })],
    ['a settings key among the extra booleans', "'streaming_max_insert_wait_ms', 'object_storage_concurrency'", 'spec.extraSettings.booleans.engine_max_threads is a key of settings', edit(kafka, 'extraSettings', { booleans: { engine_max_threads: true } })],
    ['a settings key among the extra numbers', "'streaming_max_insert_wait_ms', 'object_storage_concurrency'", 'spec.extraSettings.numbers.engine_max_threads is a key of settings', edit(kafka, 'extraSettings', { numbers: { engine_max_threads: 1 } })],
    ['a settings key among the extra strings', "'streaming_max_insert_wait_ms', 'object_storage_concurrency'", 'spec.extraSettings.strings.engine_max_threads is a key of settings', edit(kafka, 'extraSettings', { strings: { engine_max_threads: '1' } })],
    ['a key both boolean and number', 'self.booleans.all(k, !(k in self.numbers))', 'only one of booleans and numbers', edit(kafka, 'extraSettings', { booleans: { k: true }, numbers: { k: 1 } })],
    ['a key both boolean and string', 'self.booleans.all(k, !(k in self.strings))', 'only one of booleans and strings', edit(kafka, 'extraSettings', { booleans: { k: true }, strings: { k: 'x' } })],
    ['a key both number and string', 'self.numbers.all(k, !(k in self.strings))', 'only one of numbers and strings', edit(kafka, 'extraSettings', { numbers: { k: 1 }, strings: { k: 'x' } })],
    ['both serviceRef and serviceId', 'has(self.serviceRef) != has(self.serviceId)', 'exactly one of serviceRef', edit(kafka, 'serviceId', SERVICE_ID)],
    ['no destination.table', 'has(self.source.postgres) || has(self.destination.table)', 'destination.table is required', without(kafka, 'destination.table')],
    ['a postgres pipe with columns', '!has(self.source.postgres) || !(', 'destination of a postgres pipe names only database', edit(postgresPipe('replica'), 'destination.columns', kafka.destination && (kafka.destination as Spec).columns)],
    ['a column no mapping feeds', 'self.destination.columns.all(c', 'fieldMappings must cover every destination column; missing: payload', edit(kafka, 'fieldMappings', kafka.fieldMappings.slice(0, 1))],
  ].map(([what, rule, says, spec]) => ({ kind: 'Pipe', what, rule, says, spec }) as Case),
  ...[
    ['an origin that is no host', "self.matches('^(https?://)?", 'allowedOrigins', { ...queryEndpoint, allowedOrigins: 'not a host!' }],
    ['both serviceRef and serviceId', 'has(self.serviceRef) != has(self.serviceId)', 'exactly one of serviceRef', { ...queryEndpoint, serviceId: SERVICE_ID }],
  ].map(([what, rule, says, spec]) => ({ kind: 'QueryEndpoint', what, rule, says, spec }) as Case),
  ...[
    ['both serviceRef and serviceId', 'has(self.serviceRef) != has(self.serviceId)', 'exactly one of serviceRef', { ...msk, serviceId: SERVICE_ID }],
    ['a VPC endpoint service without its name', "has(self.vpcEndpointServiceName) == (self.type", 'vpcEndpointServiceName', without(vpcEndpointService, 'vpcEndpointServiceName')],
    ['a VPC resource without its configuration', "has(self.vpcResourceConfigurationId) == (self.type", 'vpcResourceConfigurationId', without(vpcResource, 'vpcResourceConfigurationId')],
    ['a VPC resource without its share', "has(self.vpcResourceShareArn) == (self.type", 'vpcResourceShareArn', without(vpcResource, 'vpcResourceShareArn')],
    ['MSK without its cluster', "has(self.mskClusterArn) == (self.type", 'mskClusterArn', without(msk, 'mskClusterArn')],
    ['MSK without its authentication', "has(self.mskAuthentication) == (self.type", 'mskAuthentication', without(msk, 'mskAuthentication')],
  ].map(([what, rule, says, spec]) => ({ kind: 'ReversePrivateEndpoint', what, rule, says, spec }) as Case),
  ...[
    ['a tile alert without dashboardId', 'has(self.dashboardId)', 'dashboardId', without(tile, 'dashboardId')],
    ['a tile alert without tileId', 'has(self.tileId)', 'tileId', without(tile, 'tileId')],
    ['a search alert without savedSearchId', 'has(self.savedSearchId)', 'savedSearchId', without(search, 'savedSearchId')],
    ['a dashboard by id and by reference', '!(has(self.dashboardId) && has(self.dashboardRef))', 'dashboardId and dashboardRef are two ways', { ...tileByName, dashboardId: 'd-1' }],
    ['a tile by id and by name', '!(has(self.tileId) && has(self.tile))', 'tileId and tile are two ways', { ...tileByName, tileId: 't-1' }],
    ['a saved search by id and by reference', '!(has(self.savedSearchId) && has(self.savedSearchRef))', 'savedSearchId and savedSearchRef are two ways', { ...search, savedSearchRef: { name: 'errors' } }],
    ['a tile name without its dashboard', 'has(self.dashboardRef) == has(self.tile)', 'tile goes with dashboardRef', { ...tile, tile: 'errors' }],
    ['a webhook by id and by reference', 'has(self.channel.webhookId) != has(self.channel.webhookRef)', 'exactly one of channel.webhookId and channel.webhookRef', edit(tile, 'channel.webhookRef', { name: 'on-call' })],
  ].map(([what, rule, says, spec]) => ({ kind: 'Alert', what, rule, says, spec }) as Case),
  ...[
    ['headers on a slack webhook', "self.service != 'slack' || !has(self.headers)", 'headers is not allowed for the slack service', { ...webhook, service: 'slack' }],
    ['query parameters on a slack webhook', "self.service != 'slack' || !has(self.queryParams)", 'queryParams is not allowed for the slack service', { ...without(webhook, 'headers'), service: 'slack', queryParams: [{ name: 'token', secretKeyRef: { name: 'hook', key: 'token' } }] }],
    ['a body on a slack webhook', "self.service != 'slack' || !has(self.body)", 'body is not allowed for the slack service', { ...without(webhook, 'headers'), service: 'slack', body: '{}' }],
  ].map(([what, rule, says, spec]) => ({ kind: 'Webhook', what, rule, says, spec }) as Case),
  ...[
    ['two tiles of one name', 'self.tiles.exists_one(o, o.name == t.name)', 'tile names must be unique', { ...dashboard, tiles: [dashboard.tiles[0], { ...dashboard.tiles[1], name: 'errors' }] }],
    ['a tile past column 24', 't.x + t.w <= 24', 'x + w must be at most 24', { ...dashboard, tiles: [{ ...dashboard.tiles[0], x: 20, w: 6 }] }],
  ].map(([what, rule, says, spec]) => ({ kind: 'Dashboard', what, rule, says, spec }) as Case),
  ...[
    ['a source by id and by reference', 'has(self.sourceId) != has(self.sourceRef)', 'exactly one of sourceId and sourceRef', { ...errorSearchOf('errors', 'logs'), sourceId: 's-1' }],
    ['no source at all', 'has(self.sourceId) != has(self.sourceRef)', 'exactly one of sourceId and sourceRef', without(savedSearch, 'sourceId')],
  ].map(([what, rule, says, spec]) => ({ kind: 'SavedSearch', what, rule, says, spec }) as Case),
  ...[
    ['the query setting sluice records the owner in', "s.setting != 'log_comment'", 'log_comment is where sluice records', { ...source, querySettings: [{ setting: 'log_comment', value: 'mine' }] }],
  ].map(([what, rule, says, spec]) => ({ kind: 'Source', what, rule, says, spec }) as Case),
  ...[
    ['an expiry that is no RFC 3339 time', "self.matches('^[0-9]{4}-[0-9]{2}-[0-9]{2}T", 'expireAt must be an RFC 3339 time with a zone', { ...apiKey, expireAt: '2027-01-31' }],
    ['an IP access entry that is no IP', 'isIP(self) || isCIDR(self)', 'source must be an IP address or CIDR range', { ...apiKey, ipAccessList: [{ source: 'x' }] }],
    ['a rotation period that is no Go duration', "duration(self) >= duration('1h')", 'rotation.every must be a duration of hours, minutes or seconds from 1h to 8760h', { ...apiKey, rotation: { every: '30d' } }],
    ['a rotation grace period under 10 s', "duration(self) >= duration('10s')", 'rotation.gracePeriod must be a duration of hours, minutes or seconds from 10s to 24h', { ...apiKey, rotation: { gracePeriod: '5s' } }],
    ['signing in with the Secret it writes', 'self.credentialsRef.name != self.credentialsSecret.name', 'spec.credentialsRef must not name spec.credentialsSecret', { ...apiKey, credentialsRef: apiKey.credentialsSecret }],
    ["a credentials Secret and the operator's credentials", '!has(self.operatorCredentials) || !self.operatorCredentials', 'spec.credentialsRef and spec.operatorCredentials: true', { ...apiKey, credentialsRef: { name: 'key-maker' }, operatorCredentials: true }],
    ["neither a credentials Secret nor the operator's credentials", 'has(self.credentialsRef) || !has(self.operatorCredentials)', 'spec.operatorCredentials: false needs spec.credentialsRef', { ...apiKey, operatorCredentials: false }],
  ].map(([what, rule, says, spec]) => ({ kind: 'ApiKey', what, rule, says, spec }) as Case),
  ...Object.entries(VALID).flatMap(([kind, spec]) => fieldPolicyCases(kind, spec, POLICIES[kind]!)),
  // Rules that compare with the stored object: one field fixed at creation per kind, changed.
  { kind: 'DatabaseService', what: 'a new region', rule: 'oldSelf.region', says: 'region', stored: service, spec: { ...service, region: 'us-east-2' } },
  { kind: 'Pipe', what: 'another service', rule: 'oldSelf.serviceRef', says: 'serviceRef', stored: kafka, spec: edit(kafka, 'serviceRef', { name: 'other' }) },
  { kind: 'QueryEndpoint', what: 'another service', rule: 'oldSelf.serviceRef', says: 'serviceRef', stored: queryEndpoint, spec: { ...queryEndpoint, serviceRef: { name: 'other' } } },
  { kind: 'ReversePrivateEndpoint', what: 'a new description', rule: 'oldSelf.description', says: 'description', stored: msk, spec: { ...msk, description: 'another' } },
]; // prettier-ignore

/**
 * The field policy's rules of one kind: a path the kind does not have, a field fixed at creation and one never
 * read back, in each list; a list no one may add to; a field given two policies, for each pair of lists.
 */
function fieldPolicyCases(kind: string, spec: Spec, fields: PolicyFields): Case[] {
  const withPolicy = (fieldPolicy: Record<string, string[]>) => ({ ...spec, fieldPolicy });
  const inList = (paths: readonly string[]) => `self.all(p, p in [${paths.map((p) => `'${p}'`).join(', ')}])`;
  const cases: Case[] = [];
  for (const list of ['createOnly', 'reportOnly'] as const) {
    const where = `spec.fieldPolicy.${list}`;
    cases.push({
      kind,
      what: `${list} naming no field`,
      rule: inList([...fields.paths, ...fields.fixed, ...(fields.unread ?? [])]),
      says: `${where}: nope is not a field of ${kind}`,
      spec: withPolicy({ [list]: ['nope'] }),
    });
    const fixed = fields.fixed[0];
    if (fixed)
      cases.push({
        kind,
        what: `${list} on a field fixed at creation`,
        rule: 'self.all(p, !(p in [',
        says: `${where}: ${fixed} is fixed when the cloud creates the ${kind}`,
        spec: withPolicy({ [list]: [fixed] }),
      });
    const unread = fields.unread?.[0];
    if (unread)
      cases.push({
        kind,
        what: `${list} on a field never read back from the cloud`,
        rule: 'self.all(p, !(p in [',
        says: `${where}: ${unread} is never read back from the cloud`,
        spec: withPolicy({ [list]: [unread] }),
      });
  }
  const lists = Object.keys(fields.additive);
  cases.push({
    kind,
    what: 'additive on a list no one adds to',
    rule: inList(lists),
    says: 'spec.fieldPolicy.additive: nope is not a list others add to',
    spec: withPolicy({ additive: ['nope'] }),
  });
  const path = lists[0] ?? fields.paths[0] ?? fields.fixed[0]!;
  for (const [a, b] of [
    ['createOnly', 'reportOnly'],
    ['createOnly', 'additive'],
    ['reportOnly', 'additive'],
  ] as const) {
    cases.push({
      kind,
      what: `a field both ${a} and ${b}`,
      rule: `self.${a}.all(p, !(p in self.${b}))`,
      says: `${path} has two policies`,
      spec: withPolicy({ [a]: [path], [b]: [path] }),
    });
  }
  return cases;
}

/** Every CEL rule of every CRD, by kind, with whether it compares with the stored object. */
function celRules(): { kind: string; rule: string; transition: boolean }[] {
  const found: { kind: string; rule: string; transition: boolean }[] = [];
  for (const file of readdirSync(join(repoRoot, 'crds'))) {
    const crd = parse(readFileSync(join(repoRoot, 'crds', file), 'utf8')) as {
      spec: { names: { kind: string }; versions: { schema: unknown }[] };
    };
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'x-kubernetes-validations') {
          for (const { rule } of value as { rule: string }[]) {
            found.push({ kind: crd.spec.names.kind, rule, transition: rule.includes('oldSelf') });
          }
        } else walk(value);
      }
    };
    walk(crd.spec.versions);
  }
  return found;
}

describe.skipIf(clusterSkipReason())('sluice plan refuses what the apiserver refuses', () => {
  let env: OperatorEnv;
  let counter = 0;

  beforeAll(async () => {
    env = await startOperatorEnv('plan-admission');
    // CRDs just applied answer 429 for a moment while their storage initialises.
    await until('sluice plan answered by the new CRDs', async () => (await plan()).code === 0, 30_000, 500);
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  const manifest = (kind: string, name: string, spec: Spec) => ({
    apiVersion: 'sluice.dev/v1alpha1',
    kind,
    metadata: { name, namespace: env.namespace },
    spec,
  });

  /** The apiserver's answer to `kubectl apply --dry-run=server`: undefined when it accepts, else its refusal. */
  function apiserver(object: object): string | undefined {
    try {
      kubectlApply(testKubeconfigPath()!, [object] as never, { dryRun: true });
      return undefined;
    } catch (error) {
      return String((error as Error).message);
    }
  }

  /** `sluice plan -f` of the same object (without one: of the test's empty namespace). */
  const plan = (object?: object) => (object ? planDocuments(env, [object]) : planInProcess(env));

  it('has a refused spec for every CEL rule of every kind that does not compare with the stored object, and one that does per kind', () => {
    const rules = celRules();
    const uncovered = rules
      .filter((r) => !r.transition)
      .filter((r) => !CASES.some((c) => c.kind === r.kind && r.rule.includes(c.rule)));
    expect(uncovered).toEqual([]);
    const kindsWithTransitions = new Set(rules.filter((r) => r.transition).map((r) => r.kind));
    for (const kind of kindsWithTransitions) {
      expect(
        CASES.some((c) => c.kind === kind && c.stored),
        kind,
      ).toBe(true);
    }
  });

  it('accepts, like the apiserver, a valid spec of every kind', async () => {
    for (const [kind, spec] of Object.entries(VALID)) {
      const object = manifest(kind, `valid-${kind.toLowerCase()}`, spec);
      expect(apiserver(object), kind).toBeUndefined();
      const planned = await plan(object);
      expect(planned.code, `${kind}: ${planned.stderr}\n${planned.stdout}`).not.toBe(1);
    }
  }, 120_000);

  it('plans the other objects when the apiserver refuses one, and exits 1 with the refused one as error', async () => {
    kubectlApply(testKubeconfigPath()!, [manifest('DatabaseService', 'fixed-region', service)] as never);
    const moved = manifest('DatabaseService', 'fixed-region', { ...service, region: 'us-east-2' });
    const planned = await planDocuments(env, [moved, manifest('Alert', 'beside-refused', tile)]);
    expect(planned.code, planned.stderr).toBe(1);
    const { resources } = JSON.parse(planned.stdout) as {
      resources: { name: string; action: string; reason: string | null }[];
    };
    expect(resources.map(({ name, action }) => [name, action])).toEqual([
      ['fixed-region', 'error'],
      ['beside-refused', 'create'],
    ]);
    expect(resources[0]!.reason).toContain('DatabaseService fixed-region');
    expect(resources[0]!.reason).toContain('region');
  }, 60_000);

  it.each(CASES.map((c) => [`${c.kind}: ${c.what}`, c] as const))(
    'refuses, like the apiserver, %s',
    async (_what, { kind, says, spec, stored }) => {
      const name = `case-${++counter}`;
      if (stored) kubectlApply(testKubeconfigPath()!, [manifest(kind, name, stored)] as never);
      const object = manifest(kind, name, spec);
      const refusal = apiserver(object);
      expect(refusal, 'the apiserver accepted it').toBeDefined();
      expect(refusal).toContain(says);
      const planned = await plan(object);
      expect(planned.code, planned.stderr).toBe(1);
      expect(planned.stderr).toContain(`${kind} ${name}`);
      expect(planned.stderr).toContain(says);
    },
    30_000,
  );
});
