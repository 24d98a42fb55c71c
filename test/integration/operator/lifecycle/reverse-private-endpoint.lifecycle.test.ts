import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { kafkaPipe, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { rpeSpec } from '../../../../tools/fixtures/rpe.ts';
import {
  condition,
  crashDuringCreate,
  isReady,
  useOperatorEnv,
  writes,
  type OperatorEnv,
  type SluiceObject,
  isReadyWithId,
} from '../support.ts';

const RPES = '/v1/organizations/:organizationId/services/:serviceId/pipesReversePrivateEndpoints';
const RPE = `${RPES}/:reversePrivateEndpointId`;
const hasId = (e: SluiceObject | undefined) => e?.status?.id !== undefined;
const reasonIs = (reason: string) => (e: SluiceObject | undefined) =>
  condition(e, 'Ready')?.reason === reason;
const summary = (calls: { method: string; route: string }[]) => calls.map((c) => `${c.method} ${c.route}`);

describe.skipIf(clusterSkipReason())(
  'ReversePrivateEndpoint on a real apiserver against the emulator',
  () => {
    // Cloud transitions take a second, so a test can catch an endpoint on its way.
    const env = useOperatorEnv('rpe', { emulator: { transitionMs: 1000 }, operator: false });
    let serviceId: string;
    const endpoints = () => env.of<SluiceObject>('ReversePrivateEndpoint');
    const pipes = () => env.of<SluiceObject>('Pipe');
    const inCloud = (id: string) => env.emulator.store.findRpe(id);
    const warnings = async (name: string) =>
      (await env.core.listNamespacedEvent({ namespace: env.namespace })).items.filter(
        (e) => e.involvedObject.name === name && e.type === 'Warning',
      );
    /** Holds a new endpoint in PendingAcceptance, as a connection nobody has accepted yet. */
    const pendingEndpoint = async (name: string) => {
      await endpoints().apply(name, rpeSpec('vpcEndpointService', 'analytics', { description: name }));
      const created = await endpoints().waitFor(name, 'created', hasId);
      await env.forceState({
        kind: 'reversePrivateEndpoint',
        id: created.status!.id,
        state: 'PendingAcceptance',
      });
      return endpoints().waitFor(name, 'PendingAcceptance', reasonIs('PendingAcceptance'));
    };

    beforeAll(async () => {
      await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
      await env.startOperator({ managementQuota: '100/1s' });
      await env.apply('analytics', { name: 'analytics' });
      serviceId = (await env.waitFor('analytics', 'service Ready', isReady, 30_000)).status!.id!;
    });

    it('creates the endpoint with one POST of exactly its cloud fields and is Ready with what the cloud reports', async () => {
      await env.clearCalls();
      const spec = rpeSpec('msk', 'analytics');
      await endpoints().apply('orders-msk', spec);
      const endpoint = await endpoints().waitFor('orders-msk', 'Ready', isReadyWithId);

      const cloud = inCloud(endpoint.status!.id!)!;
      expect(endpoint.status).toMatchObject({
        serviceId,
        status: 'Ready',
        endpointId: cloud.endpointId,
        dnsNames: cloud.dnsNames,
        privateDnsNames: cloud.privateDnsNames,
      });
      const posts = writes(await env.calls());
      expect(summary(posts)).toEqual([`POST ${RPES}`]);
      const { serviceRef: _ref, ...cloudFields } = spec;
      expect(posts[0]!.body).toEqual(cloudFields);
    });

    it('sends nothing when only the deletion policy changes', async () => {
      await env.clearCalls();
      await endpoints().patchSpec('orders-msk', { deletionPolicy: 'Orphan' });
      await endpoints().waitFor(
        'orders-msk',
        'edit seen',
        (e) => isReadyWithId(e) && e!.status!.observedGeneration === 2,
      );
      expect(writes(await env.calls())).toEqual([]);
    });

    it('waits while PendingAcceptance, telling the user to accept the connection, and is Ready once the cloud says so', async () => {
      const pending = await pendingEndpoint('brokers');
      const cloud = inCloud(pending.status!.id!)!;
      expect(condition(pending, 'Ready')!.message).toContain(
        `accept the connection from endpoint ${cloud.endpointId} on your side`,
      );
      expect(condition(pending, 'Synced')).toMatchObject({ status: 'True' });
      expect(pending.status!.status).toBe('PendingAcceptance');

      // Looked at the cloud again: still waiting on the other side.
      await env.freshLook('ReversePrivateEndpoint', 'brokers');
      expect((await endpoints().get('brokers'))!.status!.status).toBe('PendingAcceptance');
      await env.forceState({ kind: 'reversePrivateEndpoint', id: cloud.id, state: 'Ready' });
      const ready = await endpoints().waitFor('brokers', 'Ready after acceptance', isReadyWithId, 40_000);
      expect(ready.status!.status).toBe('Ready');
      expect(await warnings('brokers')).toEqual([]);
    }, 60_000);

    it('reports a rejected connection as Rejected with one Warning Event', async () => {
      const pending = await pendingEndpoint('refused');
      await env.forceState({ kind: 'reversePrivateEndpoint', id: pending.status!.id, state: 'Rejected' });
      const rejected = await endpoints().waitFor('refused', 'Rejected', reasonIs('Rejected'), 40_000);
      expect(condition(rejected, 'Ready')).toMatchObject({ status: 'False' });
      expect(condition(rejected, 'Ready')!.message).toContain('rejected');
      // Looked at again while still Rejected: the Warning is not repeated.
      await env.freshLook('ReversePrivateEndpoint', 'refused');
      expect((await warnings('refused')).map((e) => e.reason)).toEqual(['Rejected']);
    }, 60_000);

    it('makes a Pipe that references it by name wait until it is Ready, then sends its id and never the reference', async () => {
      const pending = await pendingEndpoint('gateway');
      const endpointId = pending.status!.id!;
      const spec = kafkaPipe('via-endpoint');
      await pipes().apply('via-endpoint', {
        ...spec,
        source: { kafka: { ...spec.source.kafka, reversePrivateEndpointRefs: [{ name: 'gateway' }] } },
      });
      const waiting = await pipes().waitFor('via-endpoint', 'waiting', reasonIs('WaitingForReference'));
      expect(condition(waiting, 'Ready')!.message).toBe(
        'ReversePrivateEndpoint gateway is PendingAcceptance',
      );
      await env.freshLook('Pipe', 'via-endpoint');
      expect((await env.calls()).filter((c) => c.method === 'POST' && c.route === PIPES)).toEqual([]);

      await env.forceState({ kind: 'reversePrivateEndpoint', id: endpointId, state: 'Ready' });
      const ready = await pipes().waitFor('via-endpoint', 'Pipe Ready', isReadyWithId, 40_000);
      const posts = (await env.calls()).filter((c) => c.method === 'POST' && c.route === PIPES);
      expect(posts).toHaveLength(1);
      expect(posts[0]!.body).toMatchObject({
        source: { kafka: { reversePrivateEndpointIds: [endpointId] } },
      });
      expect(JSON.stringify(posts[0]!.body)).not.toContain('reversePrivateEndpointRefs');
      expect(env.emulator.store.findPipe(ready.status!.id!)?.source.kafka?.reversePrivateEndpointIds).toEqual(
        [endpointId],
      );
      expect(ready.status!.reversePrivateEndpoints).toEqual([
        { id: endpointId, status: 'Ready', dnsNames: inCloud(endpointId)!.dnsNames, privateDnsNames: [] },
      ]);
    }, 60_000);

    it('refuses, before any POST, a Pipe that references an endpoint of another service', async () => {
      await env.apply('elsewhere', { name: 'elsewhere' });
      await env.waitFor('elsewhere', 'service Ready', isReady, 30_000);
      await endpoints().apply('foreign', rpeSpec('msk', 'elsewhere', { description: 'foreign' }));
      const foreign = await endpoints().waitFor('foreign', 'Ready', isReadyWithId);
      await env.clearCalls();
      const spec = kafkaPipe('crossed');
      await pipes().apply('crossed', {
        ...spec,
        source: { kafka: { ...spec.source.kafka, reversePrivateEndpointRefs: [{ name: 'foreign' }] } },
      });
      const refused = await pipes().waitFor(
        'crossed',
        'InvalidReference',
        (p) => condition(p, 'Synced')?.reason === 'InvalidReference',
      );
      expect(condition(refused, 'Synced')!.message).toBe(
        `ReversePrivateEndpoint foreign belongs to service ${foreign.status!.serviceId}, not to this pipe's service ${serviceId}`,
      );
      expect(writes(await env.calls())).toEqual([]);
    });

    it('waits for the Pipes that reference it before deleting the cloud endpoint', async () => {
      const gateway = await endpoints().waitFor('gateway', 'Ready', isReadyWithId);
      await endpoints().remove('gateway');
      const waiting = await endpoints().waitFor(
        'gateway',
        'waiting for dependants',
        reasonIs('WaitingForDependants'),
      );
      expect(condition(waiting, 'Ready')!.message).toBe('waiting for Pipe via-endpoint to be deleted first');
      expect(inCloud(gateway.status!.id!)?.status).toBe('Ready');

      await pipes().remove('via-endpoint');
      await endpoints().waitFor('gateway', 'gone', (e) => e === undefined, 30_000);
      expect(inCloud(gateway.status!.id!)).toBeUndefined();
    }, 60_000);

    it('deletes under deletionPolicy Delete (Deleting until the cloud answers 404) and leaves it under Orphan', async () => {
      await endpoints().apply('doomed', rpeSpec('vpcResource', 'analytics'));
      const doomed = await endpoints().waitFor('doomed', 'Ready', isReadyWithId);
      const kept = await endpoints().waitFor('orders-msk', 'Ready', isReadyWithId);
      await env.clearCalls();

      await endpoints().remove('doomed');
      const deleting = await endpoints().waitFor('doomed', 'Deleting', reasonIs('Deleting'));
      expect(condition(deleting, 'Ready')!.message).toBe(`deleting ${doomed.status!.id}`);
      expect(inCloud(doomed.status!.id!)?.status).toBe('Deleting');
      await endpoints().waitFor('doomed', 'gone', (e) => e === undefined, 30_000);
      expect(inCloud(doomed.status!.id!)).toBeUndefined();

      await endpoints().remove('orders-msk');
      await endpoints().waitFor('orders-msk', 'gone', (e) => e === undefined);
      expect(inCloud(kept.status!.id!)).toBeDefined();
      expect(summary(writes(await env.calls()))).toEqual([`DELETE ${RPE}`]);
    }, 60_000);

    describe('adoption: crash-safe create (no tags, no creation time: the intent and the spec) and sluice.dev/external-id', () => {
      /** Applies an endpoint as if a create had been started for it at `intent` and its answer lost. */
      const applyWithIntent = (
        name: string,
        spec: Record<string, unknown>,
        // Written as sluice writes one, with the object: an intent older than its object was copied, not lost.
        intent = new Date(),
      ) => endpoints().apply(name, spec, { 'sluice.dev/create-pending': intent.toISOString() });
      const cloudBody = (spec: Record<string, unknown>) => {
        const { serviceRef: _ref, ...body } = spec;
        return body as Parameters<OperatorEnv['cloud']['createReversePrivateEndpoint']>[1];
      };

      it('adopts the one endpoint that matches the spec, with no POST', async () => {
        const spec = rpeSpec('msk', 'analytics', { description: 'lost answer' });
        const lost = await env.cloud.createReversePrivateEndpoint(serviceId, cloudBody(spec));
        await env.clearCalls();
        await applyWithIntent('recovered', spec);
        const endpoint = await endpoints().waitFor('recovered', 'Ready', isReadyWithId);
        expect(endpoint.status!.id).toBe(lost.id);
        expect(writes(await env.calls())).toEqual([]);
      });

      it('does not adopt an endpoint another ReversePrivateEndpoint already holds: creates its own', async () => {
        const spec = rpeSpec('msk', 'analytics', { description: 'twin' });
        await endpoints().apply('twin-a', spec);
        const first = await endpoints().waitFor('twin-a', 'Ready', isReadyWithId);
        await env.clearCalls();
        await applyWithIntent('twin-b', spec);
        const second = await endpoints().waitFor('twin-b', 'Ready', isReadyWithId);
        expect(second.status!.id).not.toBe(first.status!.id);
        expect(summary(writes(await env.calls()))).toEqual([`POST ${RPES}`]);
      });

      it('refuses to choose between several matching endpoints, naming them, until told by sluice.dev/external-id', async () => {
        const spec = rpeSpec('msk', 'analytics', { description: 'ambiguous' });
        const one = await env.cloud.createReversePrivateEndpoint(serviceId, cloudBody(spec));
        const other = await env.cloud.createReversePrivateEndpoint(serviceId, cloudBody(spec));
        await env.clearCalls();
        await applyWithIntent('unsure', spec);
        const refused = await endpoints().waitFor(
          'unsure',
          'AmbiguousAdoption',
          (e) => condition(e, 'Synced')?.reason === 'AmbiguousAdoption',
        );
        expect(condition(refused, 'Synced')!.message).toContain(`${one.id}, ${other.id}`);
        expect(condition(refused, 'Synced')!.message).toContain('sluice.dev/external-id');
        expect(writes(await env.calls())).toEqual([]);

        await endpoints().annotate('unsure', { 'sluice.dev/external-id': other.id });
        const adopted = await endpoints().waitFor('unsure', 'Ready', isReadyWithId);
        expect(adopted.status!.id).toBe(other.id);
        expect(writes(await env.calls())).toEqual([]);
      });

      it('reports an endpoint adopted by sluice.dev/external-id that differs from the spec, and changes nothing', async () => {
        const foreign = await env.cloud.createReversePrivateEndpoint(
          serviceId,
          cloudBody(rpeSpec('msk', 'analytics', { description: 'made elsewhere' })),
        );
        await env.clearCalls();
        await endpoints().apply('adopted', rpeSpec('msk', 'analytics', { description: 'as I want it' }), {
          'sluice.dev/external-id': foreign.id,
        });
        const refused = await endpoints().waitFor(
          'adopted',
          'CannotUpdate',
          (e) => condition(e, 'Synced')?.reason === 'CannotUpdate',
        );
        expect(condition(refused, 'Synced')!.message).toBe(
          `endpoint ${foreign.id} differs in description, and the cloud cannot change an endpoint; create a new ReversePrivateEndpoint`,
        );
        expect(writes(await env.calls())).toEqual([]);
        expect(inCloud(foreign.id)?.description).toBe('made elsewhere');
      });

      it('after a kill -9 between the POST and the status write, exactly one endpoint exists and is adopted', async () => {
        await env.stopOperator();
        const named = () =>
          [...env.emulator.store.rpesOf(serviceId).values()].filter((e) => e.description === 'phoenix');
        const { orphaned, ready } = await crashDuringCreate(
          env,
          {
            kind: 'ReversePrivateEndpoint',
            name: 'phoenix',
            spec: rpeSpec('msk', 'analytics', { description: 'phoenix' }),
          },
          { route: RPES, created: () => named().length, count: 1 },
        );
        expect(orphaned.status?.id).toBeUndefined();
        expect(orphaned.metadata.annotations?.['sluice.dev/create-pending']).toBeDefined();
        expect(ready.status!.id).toBe(named()[0]!.id);
        expect(named()).toHaveLength(1);
        expect(writes(await env.calls())).toEqual([]);
      }, 90_000);
    });
  },
);
