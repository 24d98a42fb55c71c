/** A call as stored: the time stays a number until someone reads the log. */
export interface StoredCall extends Omit<CallRecord, 'timestamp'> {
  /** ms since the epoch */
  at: number;
}

export interface CallRecord {
  method: string;
  /** The request path without its query string. */
  path: string;
  /** The route pattern, e.g. `/v1/organizations/:organizationId/services/:serviceId`. */
  route: string;
  /** HTTP status answered; 0 when a fault dropped the connection or left the call hanging. */
  status: number;
  /** Management key id presented (null when none could be read), or `alerts` for the alerting API. */
  key: string | null;
  /** ISO 8601 UTC time the request arrived. */
  timestamp: string;
  /** The parsed request body of a write (POST, PUT, PATCH, DELETE), with secret-named fields redacted. */
  body?: unknown;
}

/**
 * Every API call, in arrival order. Only the newest `capacity` entries are kept (a ring), but `counts` covers
 * every call since the last clear, so counting assertions stay exact in long benchmarks.
 */
export class CallLog {
  private ring: StoredCall[] = [];
  private next = 0;
  private readonly countMap = new Map<string, number>();

  constructor(private readonly capacity = 100_000) {}

  record(call: StoredCall): void {
    if (this.ring.length < this.capacity) this.ring.push(call);
    else this.ring[this.next] = call;
    this.next = (this.next + 1) % this.capacity;
    const key = `${call.method} ${call.route}`;
    this.countMap.set(key, (this.countMap.get(key) ?? 0) + 1);
  }

  /** Kept calls, oldest first. */
  calls(): CallRecord[] {
    const ordered =
      this.ring.length < this.capacity
        ? this.ring
        : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return ordered.map(({ at, ...call }) => ({ ...call, timestamp: new Date(at).toISOString() }));
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.countMap);
  }

  clear(): void {
    this.ring = [];
    this.next = 0;
    this.countMap.clear();
  }
}
