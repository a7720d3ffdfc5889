import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type pg from 'pg';
import { childrenOf, parentOf } from './process-cpu.js';

/**
 * SCALE_PIN=1: PostgreSQL on a core of its own, as in a deployment where the database has its own
 * machine, and this process (host and load generator, both stores) on another. Every process of
 * the throwaway cluster is pinned to the last core, this process's threads to the first; backends
 * forked later inherit the postmaster's affinity. Linux with `taskset` and two cores or more.
 */
export async function pinApart(pool: pg.Pool, ownCluster: boolean): Promise<string> {
  if (!ownCluster) throw new Error('SCALE_PIN needs the throwaway cluster (unset TEST_DATABASE_URL)');
  const cores = availableParallelism();
  if (cores < 2) throw new Error('SCALE_PIN needs two cores');
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const server = String(cores - 1);
  for (const pid of childrenOf(parentOf(rows[0]!.pid))) taskset(server, pid);
  taskset('0', process.pid);
  return `PostgreSQL pinned to CPU ${server}, this process (host and load generator) to CPU 0`;
}

function taskset(cpu: string, pid: number): void {
  execFileSync('taskset', ['-a', '-cp', cpu, String(pid)], { stdio: 'ignore' });
}
