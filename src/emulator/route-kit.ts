/** Small pieces every management route uses: path schemas, the success envelope, lookups that 404. */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Uuid } from '../cloud/schemas/common.ts';
import type { EmulatorContext } from './context.ts';
import { ApiError, conflict, notFound } from './errors.ts';
import type { PipeRecord, RpeRecord, ServiceRecord } from './store.ts';

export const OrgParams = z.object({ organizationId: Uuid });
export const ServiceParams = OrgParams.extend({ serviceId: Uuid });
export const PipeParams = ServiceParams.extend({ pipeId: Uuid });
export const RpeParams = ServiceParams.extend({ reversePrivateEndpointId: Uuid });
export type ServiceParams = z.infer<typeof ServiceParams>;
export type PipeParams = z.infer<typeof PipeParams>;
export type RpeParams = z.infer<typeof RpeParams>;

export const ORG = '/v1/organizations/:organizationId';
export const SERVICE = `${ORG}/services/:serviceId`;
export const PIPE = `${SERVICE}/pipes/:pipeId`;

/** Management success envelope. */
export const ok = <T>(result: T) => ({ status: 200, requestId: randomUUID(), result });

/** Management route options: the API, and the path parameters the gate checks. */
export const management = (params: z.ZodType) => ({ config: { api: 'management' as const, params } });

/** Ids are compared lowercased: uuids are case-insensitive and the emulator issues lowercase ones. */
export function requireService(ctx: EmulatorContext, serviceId: string): ServiceRecord {
  const service = ctx.store.services.get(serviceId.toLowerCase());
  if (!service) throw notFound(`service ${serviceId} does not exist`);
  return service;
}

export function requirePipe(ctx: EmulatorContext, service: ServiceRecord, pipeId: string): PipeRecord {
  const pipe = ctx.store.pipesOf(service.id).get(pipeId.toLowerCase());
  if (!pipe) throw notFound(`pipe ${pipeId} does not exist in service ${service.id}`);
  return pipe;
}

export function requireRpe(ctx: EmulatorContext, service: ServiceRecord, rpeId: string): RpeRecord {
  const rpe = ctx.store.rpesOf(service.id).get(rpeId.toLowerCase());
  if (!rpe) throw notFound(`reverse private endpoint ${rpeId} does not exist in service ${service.id}`);
  return rpe;
}

/** Pipes are created and changed only on a running service (the real message, without quotes). */
export function requireRunning(service: ServiceRecord, what: 'creation' | 'changes'): void {
  if (service.state !== 'running') {
    throw new ApiError(
      424,
      `pipe ${what} ${what === 'creation' ? 'is' : 'are'} allowed only when the service is running. Current state: ${service.state}`,
    );
  }
}

/** A service being deleted takes no more changes. */
export function requireNotTerminating(service: ServiceRecord): void {
  if (service.state === 'terminating')
    throw conflict(`the service is being deleted. Current state: 'terminating'`);
}
