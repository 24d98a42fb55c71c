/**
 * Moves stored resources along their state-machine plans (see state-machines.ts) in time, and removes them
 * when a plan reaches GONE.
 */
import type { PipeState } from '../cloud/schemas/pipe.ts';
import type { ServiceState } from '../cloud/schemas/service.ts';
import type { EmulatorContext } from './context.ts';
import { GONE } from './state-machines.ts';
import type { RpeStatus } from './state-machines.ts';
import type { PipeRecord, RpeRecord, ServiceRecord } from './store.ts';

const serviceKey = (id: string) => `service:${id}`;
const pipeKey = (id: string) => `pipe:${id}`;
const rpeKey = (id: string) => `rpe:${id}`;

function serviceApplier(ctx: EmulatorContext, service: ServiceRecord) {
  return (step: string, remaining: string[]) => {
    if (ctx.store.services.get(service.id) !== service) return;
    if (step === GONE) removeService(ctx, service);
    else {
      service.state = step as ServiceState;
      service.pending = remaining;
    }
    ctx.changed();
  };
}

function pipeApplier(ctx: EmulatorContext, pipe: PipeRecord) {
  return (step: string, remaining: string[]) => {
    if (ctx.store.pipesOf(pipe.serviceId).get(pipe.id) !== pipe) return;
    if (step === GONE) ctx.store.removePipe(pipe);
    else {
      pipe.state = step as PipeState;
      pipe.pending = remaining;
      pipe.updatedAt = ctx.timestamp();
    }
    ctx.changed();
  };
}

function rpeApplier(ctx: EmulatorContext, rpe: RpeRecord) {
  return (step: string, remaining: string[]) => {
    if (ctx.store.rpesOf(rpe.serviceId).get(rpe.id) !== rpe) return;
    if (step === GONE) ctx.store.removeRpe(rpe);
    else {
      rpe.status = step as RpeStatus;
      rpe.pending = remaining;
    }
    ctx.changed();
  };
}

export function runService(ctx: EmulatorContext, service: ServiceRecord, steps: readonly string[]): void {
  ctx.transitions.run(serviceKey(service.id), steps, serviceApplier(ctx, service));
}

export function runPipe(ctx: EmulatorContext, pipe: PipeRecord, steps: readonly string[]): void {
  ctx.transitions.run(pipeKey(pipe.id), steps, pipeApplier(ctx, pipe));
}

export function runRpe(ctx: EmulatorContext, rpe: RpeRecord, steps: readonly string[]): void {
  ctx.transitions.run(rpeKey(rpe.id), steps, rpeApplier(ctx, rpe));
}

/** Pipe DELETE: the pipe is gone at once, whatever its state. */
export function deletePipe(ctx: EmulatorContext, pipe: PipeRecord): void {
  ctx.transitions.cancel(pipeKey(pipe.id));
  ctx.store.removePipe(pipe);
  ctx.changed();
}

/** A service leaves with its pipes, reverse private endpoints and query endpoint (and their timers). */
function removeService(ctx: EmulatorContext, service: ServiceRecord): void {
  ctx.transitions.cancel(serviceKey(service.id));
  for (const pipe of ctx.store.pipesOf(service.id).values()) ctx.transitions.cancel(pipeKey(pipe.id));
  for (const rpe of ctx.store.rpesOf(service.id).values()) ctx.transitions.cancel(rpeKey(rpe.id));
  ctx.store.removeService(service.id);
}

/** Control route: put a resource in a state now; whatever it was on its way to is abandoned. */
export function forceService(ctx: EmulatorContext, service: ServiceRecord, state: ServiceState): void {
  ctx.transitions.cancel(serviceKey(service.id));
  service.state = state;
  service.pending = [];
  ctx.changed();
}

export function forcePipe(ctx: EmulatorContext, pipe: PipeRecord, state: PipeState): void {
  ctx.transitions.cancel(pipeKey(pipe.id));
  pipe.state = state;
  pipe.pending = [];
  pipe.updatedAt = ctx.timestamp();
  ctx.changed();
}

export function forceRpe(ctx: EmulatorContext, rpe: RpeRecord, status: RpeStatus): void {
  ctx.transitions.cancel(rpeKey(rpe.id));
  rpe.status = status;
  rpe.pending = [];
  ctx.changed();
}

/** After loading a state file: carry on with the steps that were still to come. */
export function resumeAll(ctx: EmulatorContext): void {
  for (const service of ctx.store.services.values()) {
    ctx.transitions.resume(serviceKey(service.id), service.pending, serviceApplier(ctx, service));
  }
  for (const pipes of ctx.store.pipes.values()) {
    for (const pipe of pipes.values())
      ctx.transitions.resume(pipeKey(pipe.id), pipe.pending, pipeApplier(ctx, pipe));
  }
  for (const rpes of ctx.store.rpes.values()) {
    for (const rpe of rpes.values())
      ctx.transitions.resume(rpeKey(rpe.id), rpe.pending, rpeApplier(ctx, rpe));
  }
}
