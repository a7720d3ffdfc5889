import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/**
 * CPU time of the PostgreSQL processes serving the bench, read from /proc (Linux only): each
 * process's on-CPU nanoseconds from `/proc/<pid>/schedstat` (user + system, not rounded to clock
 * ticks as `/proc/<pid>/stat` is). On a cluster of the bench's own, every child of the postmaster
 * counts (backends, WAL writer, checkpointer…); on a shared server only the backends whose
 * `application_name` is the bench's, since other clients' backends are children too.
 */
export interface ServerCpu {
  /** What is counted, for the printout. */
  readonly scope: string;
  /** On-CPU µs of the counted processes so far (processes that exit take their time with them). */
  sample(): Promise<number>;
}

export async function serverCpu(
  pool: pg.Pool,
  options: { ownCluster: boolean; applicationName: string },
): Promise<ServerCpu | null> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = rows[0]!.pid;
  if (cpuNs(backend) === null) return null; // not on this machine, or no /proc
  if (options.ownCluster) {
    const postmaster = parentOf(backend);
    return {
      scope: 'every process of the throwaway cluster',
      sample: async () => sumUs(childrenOf(postmaster)),
    };
  }
  return {
    scope: `the bench's backends (application_name ${options.applicationName}; background processes not counted)`,
    sample: async () => {
      const { rows: pids } = await pool.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [options.applicationName],
      );
      return sumUs(pids.map((r) => r.pid));
    },
  };
}

/** On-CPU µs of this process (user + system), the same measure as the server's. */
export function ownCpuUs(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

/**
 * On-CPU µs of this process's main thread alone (/proc/<pid>/task/<pid>/schedstat), without its
 * worker threads; null where /proc is not there.
 */
export function mainThreadCpuUs(): number | null {
  const ns = cpuNs(`${process.pid}/task/${process.pid}`);
  return ns === null ? null : ns / 1000;
}

function sumUs(pids: number[]): number {
  let ns = 0;
  for (const pid of pids) ns += cpuNs(pid) ?? 0;
  return ns / 1000;
}

function cpuNs(pid: number | string): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/** The parent pid: the fourth field of /proc/<pid>/stat, after the parenthesized command name. */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The process and its children (on Linux, from /proc). */
export function childrenOf(parent: number): number[] {
  const children = [parent];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (parentOf(Number(entry)) === parent) children.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}
