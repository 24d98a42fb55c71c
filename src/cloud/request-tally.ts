import type { CloudHooks } from './hooks.ts';

/**
 * Counts a command's HTTP attempts and those the server refused with 429, so that the command can say in its
 * summary whether it earned any: a 429 means the key's quota was spent elsewhere too (a busy operator).
 */
export class RequestTally {
  requests = 0;
  rateLimited = 0;

  readonly hooks: CloudHooks = {
    onRequest: ({ code }) => {
      this.requests++;
      if (code === '429') this.rateLimited++;
    },
  };

  /** `12 cloud requests (3 answered 429: …)`, the advice only when there were any. */
  describe(quotaFlag = '--management-quota'): string {
    const requests = `${this.requests} cloud request${this.requests === 1 ? '' : 's'}`;
    if (this.rateLimited === 0) return `${requests}, none answered 429`;
    return (
      `${requests}, ${this.rateLimited} answered 429 (the key's quota was spent elsewhere too: ` +
      `give this command a share with ${quotaFlag}, or its own key)`
    );
  }
}
