// The load generator of bench/adapters, on a thread of its own: the client's work (undici writing
// requests, parsing answers and their headers) runs beside the server's event loop, not in it, as an
// external load generator would. Each message is one run ({ url, path, headers, body, seconds,
// connections }); the answer is its figures ({ run: { perSecond, requests, p50, p99 } } or { error }).
// Plain JavaScript: a worker thread does not get tsx's hooks on Node 20.
import { parentPort } from 'node:worker_threads';
import { Pool } from 'undici';

async function load({ url, path, headers, body, seconds, connections }) {
  const pool = new Pool(url, { connections, pipelining: 1 });
  const latencies = [];
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const res = await pool.request({ method: 'POST', path, headers, body });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
      latencies.push(performance.now() - started);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - began) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { perSecond: latencies.length / elapsed, requests: latencies.length, p50: at(0.5), p99: at(0.99) };
}

parentPort.on('message', (request) => {
  load(request).then(
    (run) => parentPort.postMessage({ run }),
    (error) => parentPort.postMessage({ error: String(error) }),
  );
});
