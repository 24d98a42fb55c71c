import { z } from 'zod';

/** mulberry32: a tiny seeded generator of floats in [0, 1); the same seed gives the same sequence. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Body of `POST /_emulator/faults`. Exactly one answer (status, drop or hang) at most; latency combines. */
export const FaultRequest = z
  .strictObject({
    method: z
      .string()
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(METHODS))
      .optional(),
    route: z.string().startsWith('/', { error: 'must be a route pattern starting with /' }).optional(),
    status: z.number().int().min(400).max(599).optional(),
    retryAfter: z.number().int().min(0).optional(),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    drop: z.boolean().optional(),
    hang: z.boolean().optional(),
    rate: z.number().min(0).max(1).optional(),
    count: z.number().int().min(1).optional(),
    /**
     * `request` (default): the fault replaces the call. `response`: the call is handled (a create creates)
     * and only then is the answer delayed, dropped or held back — the ambiguous failure a client must survive.
     */
    phase: z.enum(['request', 'response']).optional(),
  })
  .superRefine((fault, ctx) => {
    const answers = (['status', 'drop', 'hang'] as const).filter(
      (k) => fault[k] !== undefined && fault[k] !== false,
    );
    if (answers.length > 1) {
      ctx.addIssue({ code: 'custom', path: [answers[1]!], message: `cannot combine with ${answers[0]}` });
    }
    if (answers.length === 0 && !fault.latencyMs) {
      ctx.addIssue({ code: 'custom', path: [], message: 'a fault needs status, latencyMs, drop or hang' });
    }
    if (fault.phase === 'response' && fault.status !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'cannot combine with phase response' });
    }
    if (fault.retryAfter !== undefined && fault.status === undefined) {
      ctx.addIssue({ code: 'custom', path: ['retryAfter'], message: 'needs status' });
    }
  });
export type FaultRequest = z.infer<typeof FaultRequest>;

export interface Fault extends FaultRequest {
  id: string;
  /** Calls this fault has been applied to so far. */
  applied: number;
}

/**
 * Faults matched by route pattern and method, first added first. A fault with `rate` applies to that share of
 * matching calls (drawn from the seeded generator, so a run repeats); with `count` it retires after that many.
 */
export class FaultTable {
  private faults: Fault[] = [];
  private random: () => number;
  private nextId = 1;

  constructor(private readonly seed: number) {
    this.random = mulberry32(seed);
  }

  /** True when no fault is installed: the hot path checks this and skips everything else. */
  get empty(): boolean {
    return this.faults.length === 0;
  }

  add(request: FaultRequest): Fault {
    const fault: Fault = { id: String(this.nextId++), ...request, applied: 0 };
    this.faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** The fault to apply to this call, if any (and counts it). */
  take(method: string, route: string): Fault | undefined {
    for (let i = 0; i < this.faults.length; i++) {
      const fault = this.faults[i]!;
      if (fault.method !== undefined && fault.method !== method) continue;
      if (fault.route !== undefined && fault.route !== route) continue;
      if (fault.rate !== undefined && fault.rate < 1 && !(this.random() < fault.rate)) continue;
      fault.applied += 1;
      if (fault.count !== undefined) {
        fault.count -= 1;
        if (fault.count <= 0) this.faults.splice(i, 1);
      }
      return { ...fault };
    }
    return undefined;
  }

  clear(): void {
    this.faults = [];
  }

  /** Clears the faults and restarts the generator, so a reset emulator repeats the same draws. */
  reset(): void {
    this.clear();
    this.random = mulberry32(this.seed);
    this.nextId = 1;
  }
}
