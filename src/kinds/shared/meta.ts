import type { z } from 'zod';

/** A CEL rule as the apiserver takes it: checked at admission, `message` shown to the user. */
export interface CelRule {
  rule: string;
  message: string;
  /** A CEL string expression for the message, when the offending value (a map key) should be named. */
  messageExpression?: string;
  /** Set for rules that compare with the stored object, so the field can be named in the error path. */
  fieldPath?: string;
}

/** Attaches CEL rules to a schema; they land in the CRD as `x-kubernetes-validations`. */
export const withRules = <T extends z.ZodType>(schema: T, ...rules: CelRule[]): T =>
  schema.meta({ 'x-kubernetes-validations': rules });

/** A field that can be neither added nor removed after creation (its content may have rules of its own). */
export function presenceFixed(field: string, hint: string, path = ''): CelRule {
  return {
    rule: `has(self.${field}) == has(oldSelf.${field})`,
    message: `${path ? `${path}.` : ''}${field} ${hint}`,
    fieldPath: `.${field}`,
  };
}

/**
 * A field that the cloud fixes at creation: changing, adding or removing it later is refused at admission.
 * `path` is where the rule's object sits in the spec (`source.kafka`), so the message names the whole field.
 */
export function immutable(
  field: string,
  hint = 'cannot change after the resource is created',
  path = '',
): CelRule {
  return {
    rule: `has(self.${field}) == has(oldSelf.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
    message: `${path ? `${path}.` : ''}${field} ${hint}`,
    fieldPath: `.${field}`,
  };
}
