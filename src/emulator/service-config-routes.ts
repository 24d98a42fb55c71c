/** Services, the real API's extras: resize in place and private endpoint config. */
import {
  organizationLimitIssue,
  ReplicaScalingRequest,
  SIZING_FIELDS,
  sizingIssue,
} from '../cloud/schemas/service.ts';
import type { App, EmulatorContext } from './context.ts';
import { badRequest } from './errors.ts';
import { runService } from './lifecycle.ts';
import {
  management,
  ok,
  requireNotTerminating,
  requireService,
  SERVICE,
  ServiceParams,
} from './route-kit.ts';
import type { ServiceParams as ServiceParamsType } from './route-kit.ts';
import { serviceResizePlan } from './state-machines.ts';
import { privateEndpointConfigView, serviceView } from './views.ts';

export function registerServiceConfigRoutes(app: App, ctx: EmulatorContext): void {
  app.patch(
    `${SERVICE}/replicaScaling`,
    { ...management(ServiceParams), schema: { body: ReplicaScalingRequest } },
    (request) => {
      const { serviceId } = request.params as ServiceParamsType;
      const service = requireService(ctx, serviceId);
      requireNotTerminating(service);
      const body = request.body;
      // Creation's rules, judged on the values the service would have; a 400 changes nothing.
      const limit = organizationLimitIssue(body, { paid: ctx.paid });
      if (limit) throw badRequest(`${limit.path} ${limit.message}`);
      const issue = sizingIssue({ ...service, ...body }, new Set(Object.keys(body)), {
        byoc: service.byocId !== undefined,
        firstInWarehouse: service.isPrimary,
      });
      if (issue) throw badRequest(`${issue.path} ${issue.message}`);
      const changes = SIZING_FIELDS.some(
        (field) => body[field] !== undefined && body[field] !== service[field],
      );
      Object.assign(service, body);
      // The replica range belongs to horizontal scaling; going vertical drops it.
      if (service.autoscalingMode !== 'horizontal') {
        delete service.minReplicas;
        delete service.maxReplicas;
      }
      // The deprecated totals follow the per-replica values.
      service.minTotalMemoryGb = service.minReplicaMemoryGb * service.numReplicas;
      service.maxTotalMemoryGb = service.maxReplicaMemoryGb * service.numReplicas;
      const plan = serviceResizePlan(service.state);
      if (changes && plan.kind === 'steps') runService(ctx, service, plan.steps);
      ctx.changed();
      return ok(serviceView(service));
    },
  );

  app.get(`${SERVICE}/privateEndpointConfig`, management(ServiceParams), (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    return ok(privateEndpointConfigView(requireService(ctx, serviceId)));
  });
}
