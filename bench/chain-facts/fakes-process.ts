/**
 * The fake java-tron node and the fake Chainalysis APIs in their own process, so their work does not
 * share the measured event loop; every answer waits the same fixed delay. Prints their URLs as one JSON line.
 */
import { startFakeChainalysis, startFakeTronNode } from '@tron-safety/core/fakes';

const delayMs = Number(process.argv[2] ?? 50);
const node = await startFakeTronNode({ latencyMs: delayMs });
const delay = { '*': { kind: 'delay', ms: delayMs } } as const;
const vendors = await startFakeChainalysis({ faults: { entity: delay, sanctions: delay } });
process.stdout.write(
  `${JSON.stringify({ node: node.url, entity: vendors.entityUrl, sanctions: vendors.sanctionsUrl })}\n`,
);
process.stdin.resume();
process.stdin.on('end', () => void Promise.all([node.close(), vendors.close()]).then(() => process.exit(0)));
