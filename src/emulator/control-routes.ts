/** `/_emulator/*`: reset, call log, faults, clock and forced states (loopback callers only, no cloud auth). */
import { z } from 'zod';
import { ALERT_STATES } from '../cloud/schemas/alert.ts';
import { PIPE_STATES } from '../cloud/schemas/pipe.ts';
import { RPE_STATUSES } from '../cloud/schemas/reverse-private-endpoint.ts';
import { SERVICE_STATES } from '../cloud/schemas/service.ts';
import type { CallLog } from './call-log.ts';
import { ClockRequest, type EmulatorClock } from './clock.ts';
import type { App, EmulatorContext } from './context.ts';
import { badRequest, notFound } from './errors.ts';
import { FaultRequest } from './faults.ts';
import type { FaultTable } from './faults.ts';
import { forcePipe, forceRpe, forceService } from './lifecycle.ts';
import { featuresOf } from './service-schedules.ts';
import { alertView, pipeView, rpeView, serviceView } from './views.ts';

export const ForceStateRequest = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('service'),
      id: z.string().min(1),
      state: z.enum(SERVICE_STATES).optional(),
      /** Moves every endpoint of the service to this host name. */
      host: z.string().min(1).max(253).optional(),
    })
    .refine((body) => body.state !== undefined || body.host !== undefined, {
      error: 'give state, host or both',
    }),
  z.strictObject({ kind: z.literal('pipe'), id: z.string().min(1), state: z.enum(PIPE_STATES) }),
  z.strictObject({
    kind: z.literal('reversePrivateEndpoint'),
    id: z.string().min(1),
    state: z.enum(RPE_STATUSES),
  }),
  z.strictObject({ kind: z.literal('alert'), id: z.string().min(1), state: z.enum(ALERT_STATES) }),
]);

export const FeaturesRequest = z.strictObject({
  scheduledScaling: z.boolean().optional(),
  scheduledUpgrades: z.boolean().optional(),
});

export interface ControlDeps {
  calls: CallLog;
  faults: FaultTable;
  clock: EmulatorClock;
  /** Route patterns of both APIs, so a fault naming a route that does not exist is refused. */
  apiRoutes: ReadonlySet<string>;
  reset(): void;
}

const control = { config: { api: 'control' as const } };

export function registerControlRoutes(app: App, ctx: EmulatorContext, deps: ControlDeps): void {
  const { calls, faults, clock } = deps;

  app.post('/_emulator/reset', control, () => {
    deps.reset();
    return {};
  });

  app.get('/_emulator/calls', control, () => ({ calls: calls.calls(), counts: calls.counts() }));

  app.delete('/_emulator/calls', control, () => {
    calls.clear();
    return {};
  });

  app.post('/_emulator/faults', { ...control, schema: { body: FaultRequest } }, (request) => {
    const { route } = request.body;
    if (route !== undefined && !deps.apiRoutes.has(route)) {
      throw badRequest(
        `route must be a route pattern of the emulator, e.g. ${[...deps.apiRoutes][0]} (got ${route})`,
      );
    }
    return { id: faults.add(request.body).id };
  });

  app.get('/_emulator/faults', control, () => ({ faults: faults.list() }));

  app.delete('/_emulator/faults', control, () => {
    faults.clear();
    return {};
  });

  // Hold every state where it is (steps that fall due wait), so a test reads an intermediate state on state.
  app.post('/_emulator/transitions/hold', control, () => {
    ctx.transitions.hold();
    return {};
  });

  app.post('/_emulator/transitions/release', control, () => {
    ctx.transitions.release();
    return {};
  });

  app.post('/_emulator/transitions/advance', control, () => ({ advanced: ctx.transitions.advance() }));

  app.post('/_emulator/clock', { ...control, schema: { body: ClockRequest } }, (request) => {
    clock.set(request.body);
    return clock.get();
  });

  app.get('/_emulator/clock', control, () => clock.get());

  // Which beta features the organization may use: one it lacks answers 403 on its routes.
  app.post(
    '/_emulator/organization/features',
    { ...control, schema: { body: FeaturesRequest } },
    (request) => {
      const features = { ...featuresOf(ctx), ...request.body };
      ctx.store.organization.features = features;
      ctx.changed();
      return features;
    },
  );

  app.get('/_emulator/organization/features', control, () => featuresOf(ctx));

  app.post('/_emulator/state', { ...control, schema: { body: ForceStateRequest } }, (request) => {
    const body = request.body;
    const id = body.id.toLowerCase();
    switch (body.kind) {
      case 'service': {
        const service = ctx.store.services.get(id);
        if (!service) throw notFound(`service ${body.id} does not exist`);
        if (body.host !== undefined) {
          service.host = body.host;
          ctx.changed();
        }
        if (body.state !== undefined) forceService(ctx, service, body.state);
        return serviceView(service);
      }
      case 'pipe': {
        const pipe = ctx.store.findPipe(id);
        if (!pipe) throw notFound(`pipe ${body.id} does not exist`);
        forcePipe(ctx, pipe, body.state);
        return pipeView(pipe);
      }
      case 'reversePrivateEndpoint': {
        const rpe = ctx.store.findRpe(id);
        if (!rpe) throw notFound(`reverse private endpoint ${body.id} does not exist`);
        forceRpe(ctx, rpe, body.state);
        return rpeView(rpe);
      }
      case 'alert': {
        const alert = ctx.store.alerts.get(body.id);
        if (!alert) throw notFound(`alert ${body.id} does not exist`);
        alert.state = body.state;
        ctx.changed();
        return alertView(alert);
      }
    }
  });
}
