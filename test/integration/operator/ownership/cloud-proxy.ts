// One cluster's own view of the cloud calls: the emulator's call log cannot tell two operators apart when
// they share an organization's key, so each operator reaches the emulator through a proxy of its own.
import { createServer, request } from 'node:http';

export interface ProxiedCall {
  method: string;
  /** The request path without its query string. */
  path: string;
  /** ms since the epoch, when the request arrived. */
  at: number;
  /** HTTP status answered; 0 until the answer arrives or when none does. */
  status: number;
}

export interface RecordingProxy {
  url: string;
  /** Every call sent through this proxy, oldest first. */
  calls(): ProxiedCall[];
  stop(): Promise<void>;
}

/** A plain HTTP proxy to `target` (e.g. the emulator's URL) that records each call's method and path. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const log: ProxiedCall[] = [];
  const server = createServer((req, res) => {
    const call: ProxiedCall = {
      method: req.method!,
      path: req.url!.split('?')[0]!,
      at: Date.now(),
      status: 0,
    };
    log.push(call);
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        call.status = answer.statusCode!;
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls: () => [...log],
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
