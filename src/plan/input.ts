import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { parseAllDocuments } from 'yaml';
import { API_VERSION } from '../kinds/shared/common.ts';
import { describeIssue } from '../cloud/schemas/issues.ts';
import { kindNamed } from '../kinds/index.ts';
import type { ManagedObject } from '../managed/index.ts';

/** A Secret of the input: the plan reads it instead of the cluster's (it may not exist there yet). */
export interface InputSecret {
  namespace: string;
  name: string;
  data: Record<string, string>;
}

export interface PlanInput {
  /** The sluice objects, their specs checked and defaulted as the apiserver would, in input order. */
  objects: ManagedObject[];
  secrets: InputSecret[];
  /** Documents of other kinds, left out. */
  ignored: number;
  /** Each object's file and its spec as written (before defaults), for the apiserver's dry run. */
  origins: Map<ManagedObject, { file: string; spec: unknown }>;
}

interface Document {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec?: unknown;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  items?: Document[];
}

/** A manifest the apiserver would refuse: which file, which object, which field. */
export class InvalidInput extends Error {
  override readonly name = 'InvalidInput';
}

/**
 * Reads `-f`: a file, a directory (its `.yaml`, `.yml` and `.json` files, sorted, not recursing) or `-`
 * (stdin); every YAML document, `List` items included.
 */
export async function readInput(
  path: string,
  defaultNamespace: string,
  stdin: () => Promise<string> = readStdin,
): Promise<PlanInput> {
  const sources = path === '-' ? [{ file: '<stdin>', text: await stdin() }] : await readFiles(path);
  const input: PlanInput = { objects: [], secrets: [], ignored: 0, origins: new Map() };
  for (const { file, text } of sources) {
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0) {
        throw new InvalidInput(`${file}: ${document.errors[0]!.message}`);
      }
      const value = document.toJS() as Document | null;
      for (const item of value?.kind === 'List' ? (value.items ?? []) : value ? [value] : []) {
        collect(item, file, defaultNamespace, input);
      }
    }
  }
  return input;
}

function collect(document: Document, file: string, defaultNamespace: string, input: PlanInput): void {
  const name = document.metadata?.name;
  const namespace = document.metadata?.namespace ?? defaultNamespace;
  const kind = document.apiVersion === API_VERSION ? kindNamed(document.kind ?? '') : undefined;
  if (document.apiVersion === 'v1' && document.kind === 'Secret' && name) {
    const decoded = Object.entries(document.data ?? {}).map(
      ([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')] as const,
    );
    input.secrets.push({
      namespace,
      name,
      data: { ...Object.fromEntries(decoded), ...document.stringData },
    });
    return;
  }
  if (!kind) {
    input.ignored++;
    return;
  }
  const where = `${file}: ${kind.kind} ${name ?? '(no name)'}`;
  if (!name) throw new InvalidInput(`${where}: metadata.name is required`);
  const parsed = (kind.spec as z.ZodType).safeParse(document.spec ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      describeIssue({ ...issue, path: ['spec', ...issue.path] }),
    );
    throw new InvalidInput(`${where}: ${issues.join('; ')}`);
  }
  const object: ManagedObject = {
    apiVersion: API_VERSION,
    kind: kind.kind,
    metadata: {
      name,
      namespace,
      uid: '',
      ...(document.metadata?.annotations ? { annotations: document.metadata.annotations } : {}),
      ...(document.metadata?.labels ? { labels: document.metadata.labels } : {}),
    },
    spec: parsed.data as ManagedObject['spec'],
  };
  input.objects.push(object);
  input.origins.set(object, { file, spec: document.spec ?? {} });
}

async function readFiles(path: string): Promise<{ file: string; text: string }[]> {
  if (!(await stat(path)).isDirectory()) return [{ file: path, text: await readFile(path, 'utf8') }];
  const files = (await readdir(path)).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({ file: join(path, file), text: await readFile(join(path, file), 'utf8') })),
  );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
