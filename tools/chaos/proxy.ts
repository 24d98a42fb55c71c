// A TCP proxy between the operator and kube-apiserver, so a run can cut every connection (and with them the
// watches) without restarting anything. TLS passes through untouched: the certificate names 127.0.0.1.
import { createServer, connect, type Socket } from 'node:net';

export interface CuttableProxy {
  port: number;
  /** Destroys every open connection; clients must connect (and watch) again. Returns how many were cut. */
  cutAll(): number;
  /** The operator's connections open now. */
  clientConnections(): number;
  stop(): Promise<void>;
}

export async function startCuttableProxy(targetPort: number): Promise<CuttableProxy> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(socket);
      socket.pipe(other);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        open.delete(socket);
        other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const clientConnections = () => [...open].filter((s) => s.remotePort !== targetPort).length;
  return {
    port: (server.address() as { port: number }).port,
    cutAll() {
      const count = clientConnections();
      for (const socket of open) socket.destroy();
      return count;
    },
    clientConnections,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
