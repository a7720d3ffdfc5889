import { createSafetyClient, type CheckFailure } from '../client.js';
import type { ClientFailure } from '../answers.js';
import { isSafeToBook } from '../booking.js';
import { isHeaderValue } from '../header-value.js';
import { CLIENT_VERSION } from '../version.js';
import { parseCommand, USAGE, type Command } from './args.js';
import { sendsInClear } from './plain-http.js';
import { printable, printableJsonText } from './printable.js';
import { createStyle, renderCheck, renderUsage } from './summary.js';

/** Where the CLI writes and what it reads: the process's, or a test's. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown; isTTY?: boolean; hasColors?: () => boolean };
  stderr: { write(text: string): unknown };
}

export const EXIT = { clear: 0, answered: 1, failed: 2, usage: 64 } as const;
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** Runs one command line; resolves to the exit code (0 CLEAR, 1 other state, 2 API error/unreachable, 64 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv);
  if (parsed.isErr()) {
    // The line breaks are parseArgs's own; what it quotes is the command line's.
    const message = parsed.error.split('\n').map(printable).join('\n');
    io.stderr.write(`tron-safety: ${message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const command = parsed.value;
  if (command.kind === 'help') return (void io.stdout.write(USAGE), 0);
  if (command.kind === 'version') return (void io.stdout.write(`${CLIENT_VERSION}\n`), 0);
  const baseUrl = io.env.TRON_SAFETY_URL?.trim() || DEFAULT_URL;
  const apiKey = io.env.TRON_SAFETY_API_KEY?.trim() ?? '';
  if (sendsInClear(baseUrl) && !command.insecureHttp) {
    const message = `TRON_SAFETY_URL ${baseUrl} is plain http to another host: the API key would cross the network in clear. Use https, or pass --insecure-http to send it anyway`;
    return fail(io, command, message, EXIT.usage);
  }
  let client;
  try {
    client = createSafetyClient({ baseUrl, apiKey });
  } catch {
    // Never the key itself in a message.
    const wrong = isHeaderValue(apiKey)
      ? `TRON_SAFETY_URL is not a URL (http or https): '${baseUrl}'`
      : 'TRON_SAFETY_API_KEY cannot be sent as an HTTP header (a line break or a character beyond Latin-1)';
    return fail(io, command, wrong);
  }
  try {
    return command.kind === 'check' ? await check(command, client, io) : await usage(command, client, io);
  } finally {
    await client.close();
  }
}

type Client = ReturnType<typeof createSafetyClient>;

async function check(command: Extract<Command, { kind: 'check' }>, client: Client, io: CliIo): Promise<number> {
  const request = {
    tx_hash: command.txHash,
    network: 'tron' as const,
    ...(command.recipient !== undefined ? { expected_recipient: command.recipient } : {}),
    ...(command.token !== undefined ? { expected_token_contract: command.token } : {}),
    ...(command.amount !== undefined ? { expected_amount: command.amount } : {}),
  };
  const key = command.idempotencyKey;
  const outcome = await client.check(request, key !== undefined ? { idempotencyKey: key } : {});
  if (outcome.isErr()) return failure(io, command, outcome.error);
  const answer = outcome.value;
  io.stdout.write(command.json ? jsonOut(answer.raw, io) : `${renderCheck(answer, createStyle(colours(io)))}\n`);
  if (command.recipient === undefined || command.amount === undefined) {
    io.stderr.write('tron-safety: booking needs --recipient and --amount verified: without them a check exits 1\n');
  }
  // A script reads 0 as "book it": only a CLEAR that every booking rule accepts.
  return isSafeToBook(answer) ? EXIT.clear : EXIT.answered;
}

async function usage(command: Extract<Command, { kind: 'usage' }>, client: Client, io: CliIo): Promise<number> {
  const outcome = await client.usage(command.days !== undefined ? { days: command.days } : {});
  if (outcome.isErr()) return failure(io, command, outcome.error);
  io.stdout.write(command.json ? jsonOut(outcome.value.raw, io) : `${renderUsage(outcome.value)}\n`);
  return EXIT.clear;
}

/** The body: a pipe gets the exact bytes; a terminal a newline too, and control characters as JSON escapes. */
const jsonOut = (raw: string, io: CliIo) => (io.stdout.isTTY ? `${printableJsonText(raw)}\n` : raw);

function colours(io: CliIo): boolean {
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (io.env.NO_COLOR !== undefined) return false;
  return Boolean(io.stdout.isTTY) && (io.stdout.hasColors?.() ?? true);
}

/** An API error prints its envelope (as received with --json); an unknown outcome says which key to resend with. */
function failure(io: CliIo, command: Command, error: ClientFailure | CheckFailure): number {
  const key = 'idempotencyKey' in error ? error.idempotencyKey : null;
  if (error.kind === 'api_error') {
    if (command.kind !== 'help' && command.kind !== 'version' && command.json) io.stdout.write(jsonOut(error.raw, io));
    // A replayed error is this key's final outcome: running again replays it.
    const retry = !key
      ? ''
      : error.replayed
        ? `; the stored outcome of --idempotency-key ${key}: a new check needs a new key`
        : error.retryable
          ? `; retryable: run again with --idempotency-key ${key}`
          : '';
    io.stderr.write(
      printable(
        `tron-safety: HTTP ${error.status} ${error.code}: ${error.message} (request ${error.requestId ?? '-'})${retry}`,
      ) + '\n',
    );
    return EXIT.failed;
  }
  const unknown = key && error.kind === 'unresolved';
  const resend = unknown ? `; the outcome is unknown: run again with --idempotency-key ${key}, never a new key` : '';
  return fail(io, command, `${error.message}${resend}`);
}

function fail(io: CliIo, command: Command, message: string, code: number = EXIT.failed): number {
  const json = command.kind === 'check' || command.kind === 'usage' ? command.json : false;
  io.stderr.write(
    json
      ? `${printableJsonText(JSON.stringify({ error: { exit_code: code, message } }))}\n`
      : `tron-safety: ${printable(message)}\n`,
  );
  return code;
}
