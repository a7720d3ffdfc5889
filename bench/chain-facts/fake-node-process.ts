/** The fake node in its own process, so its work does not share the measured provider's event loop. */
import { startFakeTronNode } from '@tron-safety/core/fakes';

const node = await startFakeTronNode({ latencyMs: Number(process.argv[2] ?? 50) });
process.stdout.write(`${node.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void node.close().then(() => process.exit(0)));
