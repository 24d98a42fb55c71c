import { createHash } from 'node:crypto';

/**
 * The CRDs' bounds on the status fields sluice copies user input into (annotations, field names, messages
 * naming spec values). The CRD schemas state them from here, and the runtime cuts what it copies to them
 * before writing: a status the apiserver refuses would leave the object unable to record anything.
 */
export const STATUS_BOUNDS = {
  /** A condition's message. */
  message: 32_768,
  /** An annotation value status records as handled (`lastHandledReconcileAt`, `passwordReset`). */
  recordedAnnotation: 1_024,
  /** `status.id`: a cloud id, or the one the `sluice.dev/external-id` annotation asks to adopt. */
  id: 253,
  /** `pendingChanges`: the calls listed, the fields named per call, a field name's and a path's length. */
  pendingChanges: 32,
  pendingChangeFields: 64,
  fieldName: 253,
  path: 1_024,
} as const;

/** `text` cut to `max` characters, the cut marked with `…`. */
export function boundedText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * An annotation value as status records it once handled: the value itself when it fits, else its digest
 * (`sha256:…`), which still tells a new value from one already handled. Compare with this, never the raw value.
 */
export function recordedAnnotation(value: string): string {
  if (value.length <= STATUS_BOUNDS.recordedAnnotation) return value;
  return `sha256:${createHash('sha256').update(value).digest('hex')}`;
}
