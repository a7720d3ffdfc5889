import { createServer, connect, type Server } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that counts the round trips clients make: every frontend
 * `Sync` (extended protocol: one statement with its parameters) and `Query` (simple protocol)
 * message waits for the server's ReadyForQuery, so their number is the number of round trips,
 * whatever the client library does.
 */
export interface CountingProxy {
  url: string;
  /** Round trips since the proxy started. */
  readonly roundTrips: number;
  close(): Promise<void>;
}

export async function startCountingProxy(target: URL): Promise<CountingProxy> {
  let roundTrips = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    let pending = Buffer.alloc(0);
    let startup = true;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code !== 80877103) startup = false; // an SSLRequest is followed by the real startup
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1) + 1;
        if (pending.length < length) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'S' || type === 'Q') roundTrips++;
        pending = pending.subarray(length);
      }
    });
    upstream.pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: url.toString(),
    get roundTrips() {
      return roundTrips;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
