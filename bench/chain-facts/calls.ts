/**
 * Every HTTP call this process makes through undici (the node client's pools and the vendors'
 * requests alike), counted from undici's diagnostics channels while recording: how many calls, how
 * many connections had to be opened, and the provider levels, the longest chain of calls each
 * started only after the one before it had answered.
 */
import diagnostics from 'node:diagnostics_channel';

interface Call {
  start: number;
  end: number;
}

export interface Recorded {
  calls: number;
  connections: number;
  levels: number;
}

let recording = false;
const calls = new Map<object, Call>();
let connections = 0;

const ended = (message: unknown) => {
  const call = calls.get((message as { request: object }).request);
  if (call) call.end = performance.now();
};
diagnostics.subscribe('undici:request:create', (message) => {
  if (recording) calls.set((message as { request: object }).request, { start: performance.now(), end: Infinity });
});
diagnostics.subscribe('undici:request:trailers', ended);
diagnostics.subscribe('undici:request:error', ended);
diagnostics.subscribe('undici:client:connected', () => {
  if (recording) connections++;
});

/** Level of each call: one more than the deepest call that had answered before it started. */
export function levelsOf(intervals: readonly Call[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  const levels: number[] = [];
  sorted.forEach((call, i) => {
    const before = sorted.slice(0, i).flatMap((c, j) => (c.end <= call.start ? [levels[j]!] : []));
    levels.push(1 + Math.max(0, ...before));
  });
  return Math.max(0, ...levels);
}

/** Runs `work` while recording its calls. */
export async function recorded(work: () => Promise<void>): Promise<Recorded> {
  calls.clear();
  connections = 0;
  recording = true;
  try {
    await work();
  } finally {
    recording = false;
  }
  return { calls: calls.size, connections, levels: levelsOf([...calls.values()]) };
}
