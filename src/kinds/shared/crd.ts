import { z } from 'zod';
import { GROUP, VERSION } from './common.ts';
import type { GrantSchema } from './grant-schema.ts';
import type { KindDescriptor, PrinterColumn } from './descriptor.ts';

type JsonSchema = { [key: string]: unknown };

const COMMON_COLUMNS: PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  // Why it is (not) Ready at a glance: Creating, WaitingForReference, CloudFailed, ...
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
  { name: 'Synced', type: 'string', jsonPath: '.status.conditions[?(@.type=="Synced")].status' },
  // Why the last reconcile failed (Ready=True, Synced=False: the cloud matches, but a change is refused).
  { name: 'Synced-Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Synced")].reason' },
  // Which Secret the calls are made with: spec.credentialsRef's, the namespace's default, or (operator).
  { name: 'Credentials', type: 'string', jsonPath: '.status.credentials' },
  // Fields that differ from the spec and are left as the field policy allows.
  { name: 'Drift', type: 'integer', jsonPath: '.status.driftCount' },
  {
    name: 'Message',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].message',
    priority: 1,
  },
  { name: 'ID', type: 'string', jsonPath: '.status.id' },
  { name: 'Policy', type: 'string', jsonPath: '.spec.managementPolicy', priority: 1 },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** The CustomResourceDefinition of a kind, ready to apply. */
export function customResourceDefinition(kind: KindDescriptor): JsonSchema {
  return definition(kind, {
    subresources: { status: {} },
    additionalPrinterColumns: [...kind.printerColumns, ...COMMON_COLUMNS],
    // Served as not yet acted on until sluice writes a status: observedGeneration 0 is behind generation 1,
    // so kstatus (Flux, kpt) reads a new object InProgress, not Current.
    status: { ...structuralSchema(kind.status), default: { observedGeneration: 0 } },
  });
}

/** The CustomResourceDefinition of a kind sluice only reads (a grant): no status, no sluice columns. */
export function grantResourceDefinition(grant: GrantSchema): JsonSchema {
  return definition(grant, { additionalPrinterColumns: grant.printerColumns });
}

/** What every sluice CRD shares: the group, names, category and spec; `served` adds a kind's status and columns. */
function definition(
  of: Pick<GrantSchema, 'kind' | 'plural' | 'singular' | 'shortNames' | 'description' | 'spec'>,
  served: { subresources?: JsonSchema; additionalPrinterColumns: PrinterColumn[]; status?: JsonSchema },
): JsonSchema {
  const { status, ...version } = served;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${of.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: of.kind,
        listKind: `${of.kind}List`,
        plural: of.plural,
        singular: of.singular,
        shortNames: of.shortNames,
        categories: ['sluice'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          ...version,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: of.description,
              required: ['spec'],
              properties: {
                apiVersion: {
                  type: 'string',
                  description: 'APIVersion of this object: sluice.dev/v1alpha1.',
                },
                kind: { type: 'string', description: `Kind of this object: ${of.kind}.` },
                metadata: { type: 'object' },
                spec: structuralSchema(of.spec),
                ...(status ? { status } : {}),
              },
            },
          },
        },
      ],
    },
  };
}

/**
 * A zod schema as a Kubernetes structural schema: zod's OpenAPI 3.0 output, then a pass that removes what the
 * apiserver refuses (`$ref`, `$schema`, `additionalProperties: false` beside `properties`) and states integer
 * widths the way Kubernetes does (`format: int64` instead of zod's safe-integer bounds).
 */
export function structuralSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io: 'input',
    reused: 'inline',
    // Refinements (zod .refine) do not reach JSON Schema; a rule that must hold at admission gets a CEL rule.
    unrepresentable: 'throw',
  }) as JsonSchema;
  delete json.$schema;
  return makeStructural(json, '');
}

function makeStructural(node: JsonSchema, path: string): JsonSchema {
  for (const forbidden of ['$ref', 'anyOf', 'oneOf', 'allOf', 'not', '$defs', 'definitions']) {
    if (forbidden in node)
      throw new Error(`${path || '<root>'}: "${forbidden}" has no place in a structural schema`);
  }
  if (node.properties && node.additionalProperties === false) delete node.additionalProperties;
  // An object kept as written (a dashboard tile's chart): the apiserver takes no schema for its values.
  if (node['x-kubernetes-preserve-unknown-fields'] === true) delete node.additionalProperties;
  if (node.type === 'integer') {
    if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
    node.format ??= 'int64';
  }
  if (node.properties) {
    const properties = node.properties as Record<string, JsonSchema>;
    for (const [key, child] of Object.entries(properties)) makeStructural(child, `${path}.${key}`);
  }
  if (node.items) makeStructural(node.items as JsonSchema, `${path}[]`);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    makeStructural(node.additionalProperties as JsonSchema, `${path}{}`);
  }
  return node;
}
