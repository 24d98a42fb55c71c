/**
 * How urgent a call to the cloud is, as the reconcile that makes it knows: `user` (a change a person asked
 * for to a cloud object that exists: an update, a delete) goes before `create` (making a cloud object, and
 * the reads its reconcile makes), which goes before `poll` (observing cloud state, drift checks, waits for
 * the cloud). So an edit made while a namespace's creates queue for the budget goes ahead of them. The cloud
 * clients' request budget serves waiting calls in this order, with a floor for `poll` (while one waits, at
 * most N − 1 `user` and `create` calls of a key's N per window go before it), and the calls of one priority
 * fairly between the namespaces they are made for.
 */
export const PRIORITIES = ['user', 'create', 'poll'] as const;
export type Priority = (typeof PRIORITIES)[number];
