import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { ApiKind } from './errors.ts';
import type { Store } from './store.ts';
import type { Transitions } from './transitions.ts';
import type { Fault } from './faults.ts';

/** The fastify instance the routes register on: bodies are typed from the shared zod schemas. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which API the route belongs to: decides auth, rate limit, call log and the error shape. */
    api?: ApiKind;
    /** Path parameters, checked right after auth and rate limit (before the body is even read). */
    params?: z.ZodType;
    /** A management-key route counted against the alerting quota (the alerting API's cloud path). */
    quota?: 'alerting';
  }
  interface FastifyRequest {
    /** The management key that authenticated the call (null before auth, or on the alerting API). */
    caller: Caller | null;
    /** Key recorded in the call log. */
    callKey: string | null;
    /** Arrival time (ms since the epoch). */
    arrivedAt: number;
    /** A fault of phase `response`, applied once the handler has done its work. */
    responseFault: Fault | null;
    /** Set when a fault already recorded the call (it never got an answer). */
    recorded: boolean;
  }
}

/** Who made a management call: the key's API id, its roles and the name its quota is counted under (its key id). */
export interface Caller {
  id: string;
  roles: readonly string[];
  quotaKey: string;
}

/** What the routes share. */
export interface EmulatorContext {
  readonly organizationId: string;
  /** The management key id the emulator accepts (the keys list shows it, never its secret). */
  readonly keyId: string;
  readonly paid: boolean;
  /** The fixed team every alert belongs to. */
  readonly teamId: string;
  readonly store: Store;
  readonly transitions: Transitions;
  /** Now, as the API reports a time (`createdAt`, `updatedAt`): the clock `/_emulator/clock` sets. */
  timestamp(): string;
  /** The same clock in ms since the epoch: backups and scaling schedules run on it. */
  now(): number;
  /** Call after any change to the store: schedules the state file write. */
  changed(): void;
}
