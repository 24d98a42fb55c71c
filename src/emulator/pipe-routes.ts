/** Pipes: create, list, get, update, delete, state commands and settings. */
import { randomUUID } from 'node:crypto';
import {
  PipeCreateRequest,
  PipeScalingRequest,
  PipeSettingsRequest,
  PipeStateRequest,
  PipeUpdateRequest,
  PIPE_SCALING_DEFAULTS,
  SOURCE_KINDS,
  unmappedColumns,
  unmappedColumnsMessage,
} from '../cloud/schemas/pipe.ts';
import type { PipeSource } from '../cloud/schemas/pipe.ts';
import type { App, EmulatorContext } from './context.ts';
import { mergeSettings } from './edits.ts';
import { ApiError, badRequest } from './errors.ts';
import { deletePipe, runPipe } from './lifecycle.ts';
import {
  management,
  ok,
  PIPE,
  PipeParams,
  requirePipe,
  requireRunning,
  requireService,
  SERVICE,
  ServiceParams,
} from './route-kit.ts';
import type { PipeParams as PipeParamsType, ServiceParams as ServiceParamsType } from './route-kit.ts';
import { pipeCommandPlan, pipeRunSteps } from './state-machines.ts';
import type { PipeRecord } from './store.ts';
import { pipeView, settingsView } from './views.ts';

export function registerPipeRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  /** The service and pipe of the path, with the service required to be running (any change to a pipe). */
  function forChange(params: PipeParamsType) {
    const service = requireService(ctx, params.serviceId);
    const pipe = requirePipe(ctx, service, params.pipeId);
    requireRunning(service, 'changes');
    return pipe;
  }

  app.post(
    `${SERVICE}/pipes`,
    { ...management(ServiceParams), schema: { body: PipeCreateRequest } },
    (request) => {
      const { serviceId } = request.params as ServiceParamsType;
      const service = requireService(ctx, serviceId);
      requireRunning(service, 'creation');
      const body = request.body;
      const kind = SOURCE_KINDS.find((k) => body.source[k] !== undefined)!;
      const isContinuous = kind === 'objectStorage' ? body.source.objectStorage?.isContinuous === true : true;
      const now = ctx.timestamp();
      const pipe: PipeRecord = {
        id: randomUUID(),
        serviceId: service.id,
        name: body.name,
        state: 'Provisioning',
        pending: [],
        kind,
        isContinuous,
        source: body.source,
        destination: body.destination,
        fieldMappings: body.fieldMappings ?? [],
        scaling: { ...PIPE_SCALING_DEFAULTS, ...body.scaling },
        settings: mergeSettings({}, body.settings ?? {}),
        createdAt: now,
        updatedAt: now,
      };
      store.addPipe(pipe);
      runPipe(ctx, pipe, pipeRunSteps(kind, isContinuous, true));
      return ok(pipeView(pipe));
    },
  );

  app.get(`${SERVICE}/pipes`, management(ServiceParams), (request) => {
    const { serviceId } = request.params as ServiceParamsType;
    const service = requireService(ctx, serviceId);
    return ok([...store.pipesOf(service.id).values()].map(pipeView));
  });

  app.get(PIPE, management(PipeParams), (request) => {
    const { serviceId, pipeId } = request.params as PipeParamsType;
    return ok(pipeView(requirePipe(ctx, requireService(ctx, serviceId), pipeId)));
  });

  app.patch(PIPE, { ...management(PipeParams), schema: { body: PipeUpdateRequest } }, (request) => {
    const pipe = forChange(request.params as PipeParamsType);
    const body = request.body;
    // Computed in full before anything is written: a 400 changes nothing.
    let source: PipeSource = pipe.source;
    if (body.source) {
      for (const kind of SOURCE_KINDS) {
        if (body.source[kind] !== undefined && kind !== pipe.kind) {
          throw badRequest(
            `source.${kind} does not match the pipe's source (${pipe.kind}); the pipe must be replaced`,
          );
        }
      }
      source = mergeSourceSecrets(pipe, body.source);
    }
    const destination = body.destination?.columns
      ? { ...pipe.destination, columns: body.destination.columns }
      : pipe.destination;
    const fieldMappings = body.fieldMappings ?? pipe.fieldMappings;
    const missing = unmappedColumns(destination.columns, fieldMappings);
    if (missing.length) throw badRequest(`fieldMappings ${unmappedColumnsMessage(missing)}`);
    pipe.name = body.name ?? pipe.name;
    pipe.source = source;
    pipe.destination = destination;
    pipe.fieldMappings = fieldMappings;
    pipe.scaling = { ...pipe.scaling, ...body.scaling };
    pipe.updatedAt = ctx.timestamp();
    ctx.changed();
    return ok(pipeView(pipe));
  });

  app.delete(PIPE, management(PipeParams), (request) => {
    const pipe = forChange(request.params as PipeParamsType);
    deletePipe(ctx, pipe);
    return ok(pipeView(pipe));
  });

  app.patch(`${PIPE}/state`, { ...management(PipeParams), schema: { body: PipeStateRequest } }, (request) => {
    const pipe = forChange(request.params as PipeParamsType);
    const plan = pipeCommandPlan(pipe.state, request.body.command, pipe.kind, pipe.isContinuous);
    if (plan.kind === 'refused') throw new ApiError(plan.status, plan.message);
    if (plan.kind === 'steps') runPipe(ctx, pipe, plan.steps);
    return ok(pipeView(pipe));
  });

  app.patch(
    `${PIPE}/scaling`,
    { ...management(PipeParams), schema: { body: PipeScalingRequest } },
    (request) => {
      const pipe = forChange(request.params as PipeParamsType);
      pipe.scaling = { ...pipe.scaling, ...request.body };
      pipe.updatedAt = ctx.timestamp();
      ctx.changed();
      return ok(pipeView(pipe));
    },
  );

  app.get(`${PIPE}/settings`, management(PipeParams), (request) => {
    const { serviceId, pipeId } = request.params as PipeParamsType;
    return ok(settingsView(requirePipe(ctx, requireService(ctx, serviceId), pipeId).settings));
  });

  app.put(
    `${PIPE}/settings`,
    { ...management(PipeParams), schema: { body: PipeSettingsRequest } },
    (request) => {
      const pipe = forChange(request.params as PipeParamsType);
      pipe.settings = mergeSettings(pipe.settings, request.body);
      pipe.updatedAt = ctx.timestamp();
      ctx.changed();
      return ok(settingsView(pipe.settings));
    },
  );
}

/** A PATCH may only replace the credentials of the pipe's own source kind. */
function mergeSourceSecrets(pipe: PipeRecord, change: NonNullable<PipeUpdateRequest['source']>): PipeSource {
  const source = structuredClone(pipe.source);
  if (change.kafka && source.kafka) {
    if (change.kafka.credentials) source.kafka.credentials = change.kafka.credentials;
    const registryCredentials = change.kafka.schemaRegistry?.credentials;
    if (registryCredentials) {
      if (!source.kafka.schemaRegistry) {
        throw badRequest(
          'source.kafka.schemaRegistry.credentials needs a schema registry; the pipe has none',
        );
      }
      source.kafka.schemaRegistry.credentials = registryCredentials;
    }
  }
  if (change.objectStorage?.accessKey && source.objectStorage)
    source.objectStorage.accessKey = change.objectStorage.accessKey;
  if (change.kinesis?.accessKey && source.kinesis) source.kinesis.accessKey = change.kinesis.accessKey;
  if (change.postgres?.credentials && source.postgres)
    source.postgres.credentials = change.postgres.credentials;
  return source;
}
