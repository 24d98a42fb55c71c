/**
 * Sources (both paths; the cloud path has no GET by id, a reader lists) and connections (the self-hosted path
 * only; a connection's password is write-only).
 */
import { ConnectionRequest, ConnectionUpdate, SourceRequest } from '../cloud/schemas/clickstack.ts';
import type { z } from 'zod';
import { newObjectId } from './alerting-routes.ts';
import { idOf, serveBoth, serveSelfHosted } from './clickstack-kit.ts';
import type { App, EmulatorContext } from './context.ts';
import { notFound } from './errors.ts';
import type { ConnectionRecord, SourceRecord } from './store.ts';

const SOURCES = '/sources';
const CONNECTIONS = '/connections';

export function connectionView(connection: ConnectionRecord) {
  const { password: _password, ...view } = connection;
  return view;
}

export function registerSourceRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  function requireSource(id: string): SourceRecord {
    const source = store.sources.get(id);
    if (!source) throw notFound('Source not found');
    return source;
  }
  function requireConnection(id: string): ConnectionRecord {
    const connection = store.connections.get(id);
    if (!connection) throw notFound('Connection not found');
    return connection;
  }

  serveBoth(app, ctx, 'get', SOURCES, () => ({ data: [...store.sources.values()] }));
  serveSelfHosted(app, ctx, 'get', `${SOURCES}/:id`, (request) => ({ data: requireSource(idOf(request)) }));

  serveBoth(
    app,
    ctx,
    'post',
    SOURCES,
    (request) => {
      // An id in the body is the server's to choose: like any field the schema does not name, it was stripped.
      const source: SourceRecord = { ...(request.body as SourceRequest), id: newObjectId() };
      store.sources.set(source.id, source);
      ctx.changed();
      return { data: source };
    },
    SourceRequest,
  );

  serveBoth(
    app,
    ctx,
    'put',
    `${SOURCES}/:id`,
    (request) => {
      const current = requireSource(idOf(request));
      const source: SourceRecord = { ...(request.body as SourceRequest), id: current.id };
      store.sources.set(source.id, source);
      ctx.changed();
      return { data: source };
    },
    SourceRequest,
  );

  serveBoth(app, ctx, 'delete', `${SOURCES}/:id`, (request) => {
    store.sources.delete(requireSource(idOf(request)).id);
    ctx.changed();
    return { empty: true };
  });

  serveSelfHosted(app, ctx, 'get', CONNECTIONS, () => ({
    data: [...store.connections.values()].map(connectionView),
  }));
  serveSelfHosted(app, ctx, 'get', `${CONNECTIONS}/:id`, (request) => ({
    data: connectionView(requireConnection(idOf(request))),
  }));
  serveSelfHosted(
    app,
    ctx,
    'post',
    CONNECTIONS,
    (request) => {
      const body = request.body as z.infer<typeof ConnectionRequest>;
      const connection: ConnectionRecord = { id: newObjectId(), ...body };
      store.connections.set(connection.id, connection);
      ctx.changed();
      return { data: connectionView(connection) };
    },
    ConnectionRequest,
  );
  // The password is kept when omitted; an optional field sent as null is cleared.
  serveSelfHosted(
    app,
    ctx,
    'put',
    `${CONNECTIONS}/:id`,
    (request) => {
      const current = requireConnection(idOf(request));
      const body = request.body as z.infer<typeof ConnectionUpdate>;
      const connection: ConnectionRecord = {
        id: current.id,
        name: body.name,
        host: body.host,
        username: body.username,
        password: body.password ?? current.password,
      };
      for (const field of ['hyperdxSettingPrefix', 'prometheusEndpoint'] as const) {
        const value = body[field] === undefined ? current[field] : body[field];
        if (value !== null && value !== undefined) connection[field] = value;
      }
      store.connections.set(connection.id, connection);
      ctx.changed();
      return { data: connectionView(connection) };
    },
    ConnectionUpdate,
  );
  serveSelfHosted(app, ctx, 'delete', `${CONNECTIONS}/:id`, (request) => {
    store.connections.delete(requireConnection(idOf(request)).id);
    ctx.changed();
    return { empty: true };
  });
}
