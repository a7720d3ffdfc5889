import type { Dispatcher } from 'undici';

/** What one HTTP attempt gave: a response (any status), or no response at all. */
export type Attempt =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; raw: string }
  | { kind: 'no_response'; reason: 'network' | 'timeout' | 'aborted'; message: string };

export interface AttemptSpec {
  dispatcher: Dispatcher;
  origin: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Answers larger than this are not an answer of the API (its largest is a few KiB). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** One HTTP exchange within `timeoutMs`; never throws. */
export async function sendOnce(
  spec: AttemptSpec,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  const timeout = AbortSignal.timeout(Math.max(1, timeoutMs));
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const res = await spec.dispatcher.request({
      origin: spec.origin,
      method: spec.method,
      path: spec.path,
      headers: spec.headers,
      body: spec.body ?? null,
      signal: combined,
    });
    const raw = await readText(res.body);
    if (raw === null) return { kind: 'no_response', reason: 'network', message: 'answer larger than 1 MiB' };
    return { kind: 'response', status: res.statusCode, headers: res.headers, raw };
  } catch (error) {
    if (signal?.aborted) return { kind: 'no_response', reason: 'aborted', message: 'aborted by the caller' };
    if (timeout.aborted) return { kind: 'no_response', reason: 'timeout', message: `no answer within ${timeoutMs} ms` };
    return { kind: 'no_response', reason: 'network', message: describe(error) };
  }
}

async function readText(body: Dispatcher.ResponseData['body']): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code =
    'code' in error && typeof error.code === 'string' && !error.message.includes(error.code) ? `${error.code}: ` : '';
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${code}${error.message}${cause}`;
}
