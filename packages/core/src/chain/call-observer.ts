/**
 * An optional hook on every HTTP call a provider makes (java-tron nodes, risk vendors), for a
 * host's metrics and logs. It sees what was called and how it ended, never a URL, header or key.
 */

/** How one provider call ended. */
export type ProviderCallOutcome =
  | 'ok'
  /** No answer within the call's own timeout. */
  | 'timeout'
  /** The caller's deadline (or shutdown) stopped it. */
  | 'aborted'
  /** Connection refused, reset, DNS… */
  | 'network'
  /** An HTTP status other than 200. */
  | 'status'
  /** An answer that is not JSON, too large, or not the shape the codec expects. */
  | 'decode'
  /** java-tron's own `{"Error": …}` answer. */
  | 'node_error';

export interface ProviderCall {
  /** e.g. `tron_full_node`, `tron_solidity_node`, `chainalysis_entity`, `chainalysis_sanctions`. */
  provider: string;
  /** The endpoint, e.g. `gettransactionbyid`, `entities`, `address`. */
  call: string;
}

export interface ProviderCallEnd {
  outcome: ProviderCallOutcome;
  durationMs: number;
  /** The HTTP status, when one was received. */
  status?: number;
}

/** Called when a call starts; the function it returns (if any) is called once when the call ends. */
export type ProviderCallObserver = (call: ProviderCall) => ((end: ProviderCallEnd) => void) | void;

/**
 * Starts observing one call: the returned function reports its end once (later calls are ignored).
 * Without an observer, or when the observer throws, it does nothing: metrics never break a call.
 */
export function observeCall(
  observer: ProviderCallObserver | undefined,
  call: ProviderCall,
): (outcome: ProviderCallOutcome, status?: number) => void {
  if (!observer) return () => {};
  const started = performance.now();
  let end: ((end: ProviderCallEnd) => void) | void;
  try {
    end = observer(call);
  } catch {
    return () => {};
  }
  return (outcome, status) => {
    const report = end;
    end = undefined;
    try {
      report?.({ outcome, durationMs: performance.now() - started, ...(status === undefined ? {} : { status }) });
    } catch {
      // an observer's failure is its own
    }
  };
}
