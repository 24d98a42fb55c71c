/**
 * How urgent a call to the cloud is, as the reconcile that makes it knows: `user` (a change a person asked
 * for to a cloud object that exists: an update, a delete), `create` (making a cloud object, and the reads its
 * reconcile makes), `poll` (observing cloud state, drift checks, waits for the cloud). The cloud clients'
 * request budget serves the changes (`user` and `create`) before `poll`, with a floor for `poll` (while one
 * waits, at most N − 1 changes of a key's N per window go before it); the changes fairly between the
 * namespaces they are made for, and in a namespace's turn its `user` calls before its `create` calls: an edit
 * made while the namespace's creates queue for the budget goes ahead of them, while another namespace's
 * creates keep their turns beside the edits.
 */
export const PRIORITIES = ['user', 'create', 'poll'] as const;
export type Priority = (typeof PRIORITIES)[number];
