import type { SanctionsListStore } from '@tron-safety/core';
import { DEFAULT_OFAC_SDN_URL, OfacRefresher } from '@tron-safety/core/sanctions';

// OFAC's SDN list, kept current: downloaded at start (in the background: until then the bundled
// snapshot screens) and every hour, with conditional requests (a 304 confirms the list in use). A
// download that fails, is truncated, is older or loses more than 10 % of the addresses keeps the last
// good list. A list not confirmed for 2 days (SANCTIONS_LIST_MAX_AGE_DAYS) no longer proves an address
// clean (SANCTIONS_UNAVAILABLE, never CLEAR), so without this every clean payment ends up LIMITED_DATA.
// With PostgreSQL stores the last good list is stored, and a restart starts from it.
export function keepOfacListCurrent(store: SanctionsListStore, url = DEFAULT_OFAC_SDN_URL, everyMs = 3_600_000) {
  const list = new OfacRefresher({ store, url });
  const stopped = new AbortController();
  let running = false;
  const refresh = async () => {
    if (running) return; // a slow download is not overlapped by the next interval
    running = true;
    try {
      const result = await list.refresh(stopped.signal);
      if (result.isErr()) console.warn(`OFAC list kept (${result.error.kind}): ${result.error.reason}`);
    } catch (error) {
      console.error('OFAC refresh failed (a bug, the list in use is kept):', error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(refresh, everyMs);
  timer.unref(); // never keeps the process alive
  // Start from the list another process stored (if the store fails, refresh anyway).
  const firstRefresh = list.sync().then(refresh, refresh);
  const stop = () => {
    clearInterval(timer);
    stopped.abort();
  };
  return { list, firstRefresh, stop };
}
