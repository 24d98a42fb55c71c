/** A write a client was asked to send, kept instead of sent. */
export interface RecordedWrite {
  /** Which cloud API it was for (`management`, `alerting`). */
  api: string;
  method: string;
  /** The request path as it would be sent (base path and query included). */
  path: string;
  /** The route pattern (`/v1/organizations/:organizationId/services/:serviceId`). */
  route: string;
  body?: unknown;
}

/**
 * Collects the writes (every method but GET) of clients made with `withWritesRecorded`: those clients read
 * the cloud as usual and answer each write without sending it. Running a kind's own `update` against them
 * yields, by construction, the calls the same code would send.
 */
export class WriteRecorder {
  private readonly recorded: RecordedWrite[] = [];

  record(write: RecordedWrite): void {
    this.recorded.push(structuredClone(write));
  }

  get writes(): readonly RecordedWrite[] {
    return this.recorded;
  }
}
