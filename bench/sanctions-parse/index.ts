/**
 * Parsing OFAC's sdn.xml as a stream: a synthetic file of the given size (default 40 MB, the real one is
 * ~30 MB) in the shape OFAC publishes, parsed in a fresh child process from disk and, in another, over
 * HTTP through the refresh's download (a local server). Prints parse time, throughput, and peak RSS growth
 * (the target: under 64 MB, whatever the file size, since the file never sits whole in memory), with the
 * ratio of peak RSS growth to file size.
 *
 *   node --conditions=source --import tsx bench/sanctions-parse/index.ts [megabytes] [rounds]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeBase58Address } from '@tron-safety/core/tron';
import { downloadOfacList, parseOfacXml } from '@tron-safety/core/sanctions';
import { renderSdnEntry, renderSdnHead, SDN_TAIL } from '@tron-safety/core/fakes';

const MB = 1024 * 1024;
const TARGET_MB = 64;

/** Writes `megabytes` of sdn.xml: entries with passports and addresses of several chains, ~1 in 40 a TRON address. */
async function writeSyntheticSdn(path: string, megabytes: number): Promise<{ bytes: number; tron: number }> {
  const out = createWriteStream(path);
  const write = (text: string) =>
    out.write(text) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write(renderSdnHead(new Date('2026-11-20T00:00:00Z'), 0));
  let bytes = 0;
  let tron = 0;
  for (let uid = 1; bytes < megabytes * MB; uid++) {
    const ids = [{ type: 'Passport', number: `P${uid}` }];
    if (uid % 40 === 0) {
      ids.push({
        type: `Digital Currency Address - ${uid % 80 === 0 ? 'XBT' : 'TRX'}`,
        number: encodeBase58Address(Buffer.concat([Buffer.from([0x41]), randomBytes(20)])),
      });
      tron++;
    }
    if (uid % 7 === 0)
      ids.push({ type: 'Digital Currency Address - ETH', number: `0x${randomBytes(20).toString('hex')}` });
    const entry = renderSdnEntry({
      uid,
      firstName: `Name${uid}`,
      lastName: `SANCTIONED PARTY ${uid} LIMITED LIABILITY COMPANY`,
      sdnType: 'Individual',
      ids,
    });
    bytes += entry.length;
    await write(entry);
  }
  await write(SDN_TAIL);
  await new Promise<void>((resolve) => out.end(resolve));
  return { bytes: statSync(path).size, tron };
}

/** In the child: parse from disk or over HTTP, sampling RSS every 5 ms; prints one JSON line. */
async function child(mode: 'disk' | 'http', path: string): Promise<void> {
  let server: ReturnType<typeof createServer> | null = null;
  let url = '';
  if (mode === 'http') {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(statSync(path).size) });
      createReadStream(path).pipe(res);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sdn.xml`;
  }
  const base = process.memoryUsage.rss();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const started = performance.now();
  const result =
    mode === 'disk'
      ? (await parseOfacXml(createReadStream(path), { maxAddresses: 100_000 })).map((l) => l.entries.length)
      : (await downloadOfacList({ url })).map((d) => (d.kind === 'downloaded' ? d.list.entries.length : 0));
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  server?.close();
  if (result.isErr()) throw new Error(JSON.stringify(result.error));
  process.stdout.write(`${JSON.stringify({ ms, addresses: result.value, growth: peak - base })}\n`);
}

function runChild(mode: 'disk' | 'http', path: string): Promise<{ ms: number; addresses: number; growth: number }> {
  const self = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', self, 'child', mode, path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`)))),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const megabytes = Number(process.argv[2] ?? 40);
  const rounds = Number(process.argv[3] ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'sdn-bench-'));
  try {
    const path = join(dir, 'sdn.xml');
    const { bytes, tron } = await writeSyntheticSdn(path, megabytes);
    console.log(
      `synthetic sdn.xml: ${(bytes / MB).toFixed(1)} MB, ${tron} TRON addresses; ${rounds} rounds per mode, each in a fresh process`,
    );
    console.log('mode   parse ms (median)  MB/s   peak RSS growth (max)  growth / file size  target');
    for (const mode of ['disk', 'http'] as const) {
      const runs = [];
      for (let i = 0; i < rounds; i++) runs.push(await runChild(mode, path));
      if (runs.some((r) => r.addresses !== tron)) throw new Error(`${mode}: parsed a different address count`);
      const ms = median(runs.map((r) => r.ms));
      const growth = Math.max(...runs.map((r) => r.growth)) / MB;
      const verdict = growth < TARGET_MB ? `ok (< ${TARGET_MB} MB)` : `OVER ${TARGET_MB} MB`;
      console.log(
        `${mode.padEnd(6)} ${ms.toFixed(0).padStart(17)}  ${(bytes / MB / (ms / 1000)).toFixed(1).padStart(5)}  ${growth.toFixed(1).padStart(18)} MB  ${(growth / (bytes / MB)).toFixed(2).padStart(18)}  ${verdict}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') await child(process.argv[3] as 'disk' | 'http', process.argv[4]!);
else await main();
