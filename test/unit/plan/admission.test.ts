import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkAdmission, type Submission } from '../../../src/plan/admission.ts';
import type { KubeAccess } from '../../../src/kube/kube-config.ts';
import type { ManagedObject } from '../../../src/managed/index.ts';

type Answer = { status: number; body: object };
const status = (code: number, message: string): Answer => ({
  status: code,
  body: { kind: 'Status', status: 'Failure', message, code },
});

/** An apiserver that answers each request with the next scripted answer, recording what it was sent. */
async function scriptedApiserver(answers: Answer[]) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      requests.push({
        method: request.method!,
        url: request.url!,
        body: text ? JSON.parse(text) : undefined,
      });
      const answer = answers.shift() ?? status(500, 'unscripted');
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const access: KubeAccess = {
    getCurrentCluster: () => ({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    applyToHTTPSOptions: () => Promise.resolve(),
  };
  return { access, requests };
}
const servers: http.Server[] = [];
afterEach(() => servers.splice(0).forEach((server) => server.close()));

const object = (resourceVersion?: string): ManagedObject => ({
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'Pipe',
  metadata: {
    name: 'orders',
    namespace: 'data',
    uid: 'u-1',
    ...(resourceVersion ? { resourceVersion } : {}),
  },
  spec: { name: 'orders' },
  status: { id: 'p-1' },
});
const submission = (exists: boolean): Submission => ({
  file: 'all.yaml',
  object: object(exists ? '7' : undefined),
  spec: { name: 'orders' },
  exists,
});

describe("plan's check of each object by the apiserver's dry run", () => {
  it('creates a new object and updates an existing one, dry run only, without status', async () => {
    const api = await scriptedApiserver([
      { status: 201, body: {} },
      { status: 200, body: {} },
    ]);
    await checkAdmission(api.access, [submission(false), submission(true)], () => {});
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /apis/sluice.dev/v1alpha1/namespaces/data/pipes?dryRun=All&fieldManager=sluice-plan&fieldValidation=Strict',
      'PUT /apis/sluice.dev/v1alpha1/namespaces/data/pipes/orders?dryRun=All&fieldManager=sluice-plan&fieldValidation=Strict',
    ]);
    expect(api.requests.map((r) => (r.body as ManagedObject).status)).toEqual([undefined, undefined]);
  });

  it('returns the apiserver refusal of one object, naming the file and the object, and checks the others', async () => {
    const message = 'Pipe.sluice.dev "orders" is invalid: spec: Invalid value: "object": missing: payload';
    const api = await scriptedApiserver([status(422, message), { status: 200, body: {} }]);
    const [refusedOne, acceptedOne] = [submission(false), submission(true)];
    const notes: string[] = [];
    const refused = await checkAdmission(api.access, [refusedOne, acceptedOne], (line) => notes.push(line));
    expect([...refused]).toEqual([[refusedOne.object, `all.yaml: Pipe orders: ${message}`]]);
    expect(api.requests.map((r) => r.method)).toEqual(['POST', 'PUT']);
    expect(notes).toEqual([`refused by the apiserver: all.yaml: Pipe orders: ${message}`]);
  });

  it('updates the version the operator wrote meanwhile: a 409 reads the object again and retries once', async () => {
    const api = await scriptedApiserver([
      status(409, 'the object has been modified'),
      { status: 200, body: { metadata: { resourceVersion: '9' } } },
      { status: 200, body: {} },
    ]);
    await checkAdmission(api.access, [submission(true)], () => {});
    expect(api.requests.map((r) => r.method)).toEqual(['PUT', 'GET', 'PUT']);
    expect((api.requests[2]!.body as ManagedObject).metadata.resourceVersion).toBe('9');
  });

  it('says once per kind and namespace when it may not dry-run (403) or the namespace is missing (404)', async () => {
    const api = await scriptedApiserver([status(403, 'forbidden'), status(403, 'forbidden')]);
    const notes: string[] = [];
    await checkAdmission(api.access, [submission(false), submission(false)], (line) => notes.push(line));
    expect(notes).toEqual([
      'not checked by the apiserver (no right to create or update): Pipe in data; the schema checked it',
    ]);
  });
});
