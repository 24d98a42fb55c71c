import type { Logger } from 'pino';
import { messageOf } from './errors.ts';
import type { EventSubject, EventWriter } from './kube-writer.ts';

/**
 * How long an Event that repeats the last one of its object and reason (same message) is held back, so an
 * error loop does not spam. Only a repeat is: a different message in between (a start after a stop) is news,
 * and so is the change it was followed by.
 */
const REPEAT_AFTER_MS = 10 * 60_000;
/** Past this many remembered Events the memory is dropped: at worst an Event is repeated early. */
const MAX_REMEMBERED = 10_000;

/** An Event a reconcile decided on, as data: the executor records it. */
export interface EventNote {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * Records Kubernetes Events without blocking the reconcile: a failed Event write is logged, never fatal.
 */
export class EventRecorder {
  /** The last Event sent per object and reason: its message, and when. */
  private readonly lastSent = new Map<string, { message: string; at: number }>();

  constructor(
    private readonly writer: EventWriter,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
    /** Told of every Event sent (not of repeats held back): the operator counts them. */
    private readonly onRecorded?: (kind: string, type: 'Normal' | 'Warning', reason: string) => void,
  ) {}

  record(regarding: EventSubject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const key = `${regarding.metadata.uid}\u0000${reason}`;
    const at = this.now();
    const last = this.lastSent.get(key);
    if (last?.message === message && at.getTime() - last.at < REPEAT_AFTER_MS) return;
    if (this.lastSent.size >= MAX_REMEMBERED) this.lastSent.clear();
    this.lastSent.set(key, { message, at: at.getTime() });
    this.onRecorded?.(regarding.kind ?? '', type, reason);
    this.writer
      .createEvent(regarding, type, reason, message, at)
      .catch((error: unknown) =>
        this.logger.warn({ reason, err: messageOf(error) }, 'could not record an Event'),
      );
  }
}
