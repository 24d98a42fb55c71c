/** Services: create, list, get, update, delete, state commands and password reset. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  MAX_TAGS,
  organizationLimitIssue,
  PasswordResetRequest,
  REPLICA_MEMORY,
  ServiceCreateRequest,
  ServiceStateRequest,
  ServiceUpdateRequest,
} from '../cloud/schemas/service.ts';
import type { App, EmulatorContext } from './context.ts';
import {
  applyListEdit,
  hasAllTags,
  ipEntryIdentity,
  parseTagFilters,
  stringIdentity,
  tagIdentity,
} from './edits.ts';
import { ApiError, badRequest } from './errors.ts';
import { runService } from './lifecycle.ts';
import { findBackup } from './service-schedules.ts';
import {
  management,
  ok,
  OrgParams,
  requireNotTerminating,
  requireService,
  SERVICE,
  ServiceParams,
  ORG,
} from './route-kit.ts';
import type { ServiceParams as ServiceParamsType } from './route-kit.ts';
import { SERVICE_CREATE_STEPS, serviceCommandPlan, serviceDeletePlan } from './state-machines.ts';
import type { ServiceRecord } from './store.ts';
import { serviceView } from './views.ts';

/** Schemas whose route accepts a missing body as `{}` (the password reset). */
export const EMPTY_BODY_ALLOWED = new WeakSet<object>([PasswordResetRequest]);

const MEMORY_DEFAULTS = { paid: { min: 8, max: 120 }, unpaid: { min: 8, max: 12 } } as const;

function newPassword(): { password: string; passwordSha256: string } {
  const password = randomBytes(15).toString('base64url');
  return { password, passwordSha256: createHash('sha256').update(password).digest('hex') };
}

/** The last toggle of the mysql endpoint in a body, if any. */
function mysqlToggle(endpoints: ReadonlyArray<{ protocol: string; enabled: boolean }> | undefined) {
  return endpoints?.findLast((e) => e.protocol === 'mysql')?.enabled;
}

export function registerServiceRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  app.post(
    `${ORG}/services`,
    { ...management(OrgParams), schema: { body: ServiceCreateRequest } },
    (request) => {
      const body = request.body;
      const limit = organizationLimitIssue(body, { paid: ctx.paid });
      if (limit) throw badRequest(`${limit.path} ${limit.message}`);
      if (body.dataWarehouseId !== undefined && !store.warehouseExists(body.dataWarehouseId.toLowerCase())) {
        throw badRequest(
          `dataWarehouseId must name an existing data warehouse (${body.dataWarehouseId} does not)`,
        );
      }
      if (body.backupId !== undefined) restoreIssue(ctx, body);
      const id = randomUUID();
      const numReplicas = body.numReplicas ?? (ctx.paid ? 3 : 1);
      const defaults = ctx.paid ? MEMORY_DEFAULTS.paid : MEMORY_DEFAULTS.unpaid;
      // The deprecated total-memory fields, when they are all that is given, set the per-replica ones.
      const perReplica = (total: number | undefined) =>
        total === undefined
          ? undefined
          : Math.min(
              REPLICA_MEMORY.max,
              Math.max(
                REPLICA_MEMORY.min,
                Math.round(total / numReplicas / REPLICA_MEMORY.step) * REPLICA_MEMORY.step,
              ),
            );
      const minReplicaMemoryGb = body.minReplicaMemoryGb ?? perReplica(body.minTotalMemoryGb) ?? defaults.min;
      // A horizontally scaled service has one replica size: its upper bound defaults to the lower one.
      const horizontal = body.autoscalingMode === 'horizontal';
      const maxReplicaMemoryGb = Math.max(
        minReplicaMemoryGb,
        body.maxReplicaMemoryGb ??
          perReplica(body.maxTotalMemoryGb) ??
          (horizontal ? minReplicaMemoryGb : defaults.max),
      );
      const { password, passwordSha256 } = newPassword();
      const tde = body.hasTransparentDataEncryption === true;
      const service: ServiceRecord = {
        id,
        name: body.name,
        provider: body.provider,
        region: body.region,
        tier: body.tier,
        state: 'provisioning',
        pending: [],
        createdAt: ctx.timestamp(),
        minReplicaMemoryGb,
        maxReplicaMemoryGb,
        minTotalMemoryGb: body.minTotalMemoryGb ?? minReplicaMemoryGb * numReplicas,
        maxTotalMemoryGb: body.maxTotalMemoryGb ?? maxReplicaMemoryGb * numReplicas,
        numReplicas,
        idleScaling: body.idleScaling ?? true,
        idleTimeoutMinutes: body.idleTimeoutMinutes ?? 15,
        autoscalingMode: body.autoscalingMode ?? 'vertical',
        minReplicas: body.minReplicas,
        maxReplicas: body.maxReplicas,
        ipAccessList: applyListEdit([], { add: body.ipAccessList }, ipEntryIdentity),
        encryptionKey: body.encryptionKey,
        encryptionAssumedRoleIdentifier: body.encryptionAssumedRoleIdentifier,
        privateEndpointIds: applyListEdit([], { add: body.privateEndpointIds }, stringIdentity),
        dataWarehouseId: body.dataWarehouseId?.toLowerCase() ?? randomUUID(),
        isPrimary: body.dataWarehouseId === undefined,
        isReadonly: body.isReadonly ?? false,
        backupId: body.backupId,
        releaseChannel: body.releaseChannel ?? 'default',
        byocId: body.byocId,
        hasTransparentDataEncryption: tde,
        transparentDataEncryptionKeyId: tde ? randomUUID() : undefined,
        encryptionRoleId: tde
          ? `arn:aws:iam::000000000000:role/sluice-emulator-tde-${id.slice(0, 8)}`
          : undefined,
        profile: body.profile,
        complianceType: body.complianceType,
        mysqlEnabled: mysqlToggle(body.endpoints) ?? false,
        tags: applyListEdit([], { add: body.tags }, tagIdentity),
        passwordSha256,
      };
      store.services.set(id, service);
      runService(ctx, service, SERVICE_CREATE_STEPS);
      return ok({ service: serviceView(service), password });
    },
  );

  app.get(`${ORG}/services`, management(OrgParams), (request) => {
    const filters = parseTagFilters((request.query as { filter?: string | string[] }).filter);
    if ('error' in filters) throw badRequest(filters.error);
    const services = [...store.services.values()].filter((s) => hasAllTags(s.tags, filters));
    return ok(services.map(serviceView));
  });

  app.get(SERVICE, management(ServiceParams), (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    return ok(serviceView(requireService(ctx, serviceId)));
  });

  app.patch(SERVICE, { ...management(ServiceParams), schema: { body: ServiceUpdateRequest } }, (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    const service = requireService(ctx, serviceId);
    requireNotTerminating(service);
    const body = request.body;
    // Everything is computed first and written only when all of it is valid: a 400 changes nothing.
    const changes: Partial<ServiceRecord> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.ipAccessList)
      changes.ipAccessList = applyListEdit(service.ipAccessList, body.ipAccessList, ipEntryIdentity);
    if (body.privateEndpointIds) {
      changes.privateEndpointIds = applyListEdit(
        service.privateEndpointIds,
        body.privateEndpointIds,
        stringIdentity,
      );
    }
    if (body.releaseChannel !== undefined) {
      if (service.tier === 'development')
        throw badRequest('releaseChannel is allowed only for production services');
      changes.releaseChannel = body.releaseChannel;
    }
    const mysql = mysqlToggle(body.endpoints);
    if (mysql !== undefined) changes.mysqlEnabled = mysql;
    if (body.transparentDataEncryptionKeyId !== undefined) {
      if (!service.hasTransparentDataEncryption) {
        throw badRequest(
          'transparentDataEncryptionKeyId can rotate only on a service created with hasTransparentDataEncryption',
        );
      }
      changes.transparentDataEncryptionKeyId = body.transparentDataEncryptionKeyId;
    }
    if (body.tags) {
      const tags = applyListEdit(service.tags, body.tags, tagIdentity);
      if (tags.length > MAX_TAGS)
        throw badRequest(`tags must have at most ${MAX_TAGS} entries (would have ${tags.length})`);
      changes.tags = tags;
    }
    Object.assign(service, changes);
    ctx.changed();
    return ok(serviceView(service));
  });

  app.delete(SERVICE, management(ServiceParams), (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    const service = requireService(ctx, serviceId);
    const plan = serviceDeletePlan(service.state);
    if (plan.kind === 'refused') throw new ApiError(plan.status, plan.message);
    if (plan.kind === 'steps') runService(ctx, service, plan.steps);
    return ok(serviceView(service));
  });

  app.patch(
    `${SERVICE}/state`,
    { ...management(ServiceParams), schema: { body: ServiceStateRequest } },
    (request) => {
      const { serviceId } = request.params as ServiceParamsType;
      const service = requireService(ctx, serviceId);
      const plan = serviceCommandPlan(service.state, request.body.command);
      if (plan.kind === 'refused') throw new ApiError(plan.status, plan.message);
      if (plan.kind === 'steps') runService(ctx, service, plan.steps);
      return ok(serviceView(service));
    },
  );

  app.patch(
    `${SERVICE}/password`,
    { ...management(ServiceParams), schema: { body: PasswordResetRequest } },
    (request) => {
      const { serviceId } = request.params as ServiceParamsType;
      const service = requireService(ctx, serviceId);
      requireNotTerminating(service);
      const { newPasswordHash, newDoubleSha1Hash } = request.body;
      if (newPasswordHash !== undefined) {
        // The caller chose the password and sent only its hashes: there is nothing to return.
        service.passwordSha256 = Buffer.from(newPasswordHash, 'base64').toString('hex');
        service.passwordDoubleSha1 = newDoubleSha1Hash?.toLowerCase();
        ctx.changed();
        return ok({});
      }
      const { password, passwordSha256 } = newPassword();
      service.passwordSha256 = passwordSha256;
      service.passwordDoubleSha1 = undefined;
      ctx.changed();
      return ok({ password });
    },
  );
}

/** A restore takes a backup that exists and is done, into the region and tier of the service it was taken of. */
function restoreIssue(
  ctx: EmulatorContext,
  body: { backupId?: string; region: string; tier?: string },
): void {
  const found = findBackup(ctx, body.backupId!, ctx.now());
  if (!found) throw badRequest(`backupId must name an existing backup (${body.backupId} does not)`);
  if (found.backup.status !== 'done')
    throw badRequest(`backupId must name a finished backup (${body.backupId} is ${found.backup.status})`);
  if (found.service.region !== body.region)
    throw badRequest(`region must equal the region of the backup's service (${found.service.region})`);
  if ((found.service.tier ?? undefined) !== (body.tier ?? undefined))
    throw badRequest(`tier must equal the tier of the backup's service (${found.service.tier ?? 'none'})`);
}
