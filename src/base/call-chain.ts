/**
 * The cloud calls of one reconcile, a chain of dependent calls (a read, then the write it decides): it ends
 * once the reconcile will make no more. A read granted to the chain keeps its namespace's turn at the key's
 * budget until then (see `QuotaScheduler`), however long acting on the read's answer takes on a busy
 * machine.
 */
export class CallChain {
  private readonly endings: Array<() => void> = [];
  private over = false;

  /** Runs `ending` when the chain ends (at once if it has). */
  onEnd(ending: () => void): void {
    if (this.over) ending();
    else this.endings.push(ending);
  }

  get ended(): boolean {
    return this.over;
  }

  end(): void {
    if (this.over) return;
    this.over = true;
    for (const ending of this.endings.splice(0)) ending();
  }
}
