/**
 * A caught value that is a bug, not an outside failure: one of JavaScript's own error types raised
 * by the engine (a TypeError from reading a property of undefined, a RangeError…), which carries no
 * `code`. Sockets, undici, the file system and Node's checks of outside input (a URL from the
 * configuration, bytes that are not UTF-8) fail with a `code` (ECONNRESET, UND_ERR_SOCKET, ENOENT,
 * ERR_INVALID_URL, ERR_ENCODING_INVALID_ENCODED_DATA) and stay expected failures.
 */
export function isProgrammerError(cause: unknown): boolean {
  const builtin =
    cause instanceof TypeError ||
    cause instanceof RangeError ||
    cause instanceof ReferenceError ||
    cause instanceof SyntaxError;
  return builtin && typeof (cause as { code?: unknown }).code !== 'string';
}

/**
 * Where a `catch` turns outside failures into values: a bug is thrown on (a check answers
 * `internal_error` and the host's `onError` hears it), never typed as a node's or a vendor's failure.
 */
export function rethrowProgrammerError(cause: unknown): void {
  if (isProgrammerError(cause)) throw cause;
}
