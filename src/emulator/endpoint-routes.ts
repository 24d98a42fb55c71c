/** Reverse private endpoints (list, create, get, delete) and the service query endpoint (upsert, get, delete). */
import { randomBytes, randomUUID } from 'node:crypto';
import { QueryEndpointRequest } from '../cloud/schemas/query-endpoint.ts';
import { ReversePrivateEndpointCreateRequest } from '../cloud/schemas/reverse-private-endpoint.ts';
import type { App, EmulatorContext } from './context.ts';
import { ApiError, notFound } from './errors.ts';
import { runRpe } from './lifecycle.ts';
import {
  management,
  ok,
  requireRpe,
  requireService,
  RpeParams,
  SERVICE,
  ServiceParams,
} from './route-kit.ts';
import type { RpeParams as RpeParamsType, ServiceParams as ServiceParamsType } from './route-kit.ts';
import { rpeCreateSteps, rpeDeletePlan } from './state-machines.ts';
import type { QueryEndpointRecord, RpeRecord } from './store.ts';
import { queryEndpointView, rpeView } from './views.ts';

const RPES = `${SERVICE}/pipesReversePrivateEndpoints`;
const QUERY_ENDPOINT = `${SERVICE}/serviceQueryEndpoint`;

export function registerEndpointRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  app.get(RPES, management(ServiceParams), (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    const service = requireService(ctx, serviceId);
    return ok([...store.rpesOf(service.id).values()].map(rpeView));
  });

  app.post(
    RPES,
    { ...management(ServiceParams), schema: { body: ReversePrivateEndpointCreateRequest } },
    (request) => {
      const { serviceId } = request.params as ServiceParamsType;
      const service = requireService(ctx, serviceId);
      const body = request.body;
      const endpointId = `vpce-${randomBytes(9).toString('hex').slice(0, 17)}`;
      const rpe: RpeRecord = {
        id: randomUUID(),
        serviceId: service.id,
        description: body.description,
        type: body.type,
        vpcEndpointServiceName: body.vpcEndpointServiceName,
        vpcResourceConfigurationId: body.vpcResourceConfigurationId,
        vpcResourceShareArn: body.vpcResourceShareArn,
        mskClusterArn: body.mskClusterArn,
        mskAuthentication: body.mskAuthentication,
        endpointId,
        dnsNames: [`${endpointId}.${service.region}.vpce.emulator.sluice.dev`],
        privateDnsNames: body.type === 'MSK_MULTI_VPC' ? [`b-1.${endpointId}.kafka.emulator.sluice.dev`] : [],
        status: 'Provisioning',
        pending: [],
      };
      store.addRpe(rpe);
      runRpe(ctx, rpe, rpeCreateSteps(rpe.type));
      return ok(rpeView(rpe));
    },
  );

  app.get(`${RPES}/:reversePrivateEndpointId`, management(RpeParams), (request) => {
    const params = request.params as RpeParamsType;
    return ok(
      rpeView(requireRpe(ctx, requireService(ctx, params.serviceId), params.reversePrivateEndpointId)),
    );
  });

  app.delete(`${RPES}/:reversePrivateEndpointId`, management(RpeParams), (request) => {
    const params = request.params as RpeParamsType;
    const rpe = requireRpe(ctx, requireService(ctx, params.serviceId), params.reversePrivateEndpointId);
    const plan = rpeDeletePlan(rpe.status);
    if (plan.kind === 'refused') throw new ApiError(plan.status, plan.message);
    if (plan.kind === 'steps') runRpe(ctx, rpe, plan.steps);
    return ok(rpeView(rpe));
  });

  /** The query endpoint of a service, or 404. */
  function requireQueryEndpoint(serviceId: string): QueryEndpointRecord {
    const service = requireService(ctx, serviceId);
    const endpoint = store.queryEndpoints.get(service.id);
    if (!endpoint) throw notFound(`service ${service.id} has no query endpoint`);
    return endpoint;
  }

  app.get(QUERY_ENDPOINT, management(ServiceParams), (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    return ok(queryEndpointView(requireQueryEndpoint(serviceId)));
  });

  // An upsert that replaces the whole configuration: keys not sent are removed. The id survives replacement.
  app.post(
    QUERY_ENDPOINT,
    { ...management(ServiceParams), schema: { body: QueryEndpointRequest } },
    (request) => {
      const { serviceId } = request.params as ServiceParamsType;
      const service = requireService(ctx, serviceId);
      const endpoint: QueryEndpointRecord = {
        id: store.queryEndpoints.get(service.id)?.id ?? randomUUID(),
        serviceId: service.id,
        ...request.body,
      };
      store.queryEndpoints.set(service.id, endpoint);
      ctx.changed();
      return ok(queryEndpointView(endpoint));
    },
  );

  app.delete(QUERY_ENDPOINT, management(ServiceParams), (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    const endpoint = requireQueryEndpoint(serviceId);
    store.queryEndpoints.delete(endpoint.serviceId);
    ctx.changed();
    return ok(queryEndpointView(endpoint));
  });
}
