// Test support (`@tron-safety/store-postgres/testing`): a real PostgreSQL server for the store tests, and a fresh database per caller.
// Uses TEST_DATABASE_URL when set (CI's .ci/run starts a throwaway cluster and exports it);
// otherwise starts a throwaway cluster of its own (initdb + pg_ctl, trust auth, 127.0.0.1, a
// free port) in a temp dir, stopped and removed when the test process ends; its data directory
// is copied from a template initialized once and cached in the temp dir. When neither is possible,
// `skip` says why and the tests are skipped with that message.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  /** Connection URL whose connections use this database's own schema (`options=-c search_path=…`). */
  url: string;
  /** The schema: every table the stores create lands in it. */
  schema: string;
  /** A new pool on this database (one pool = one host process); ended by `drop`. */
  pool(max?: number): pg.Pool;
  /** Ends the pools and drops the schema with everything in it. */
  drop(): Promise<void>;
}

export interface TestPostgres {
  /** Why the tests cannot run, or undefined when a server is available. */
  skip: string | undefined;
  /**
   * A fresh, empty "database" for one test file: a new schema on the server (creating a
   * schema is instant; a database takes a second), reached through `search_path`.
   */
  createDatabase(): Promise<TestDatabase>;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const fromEnv = process.env.TEST_DATABASE_URL;
  if (fromEnv) return serverAt(fromEnv, () => {});
  try {
    const cluster = await startCluster();
    return serverAt(cluster.url, cluster.stop);
  } catch (error) {
    const reason = `PostgreSQL unavailable: TEST_DATABASE_URL is unset and no throwaway cluster could be started (${
      error instanceof Error ? error.message.split('\n')[0] : String(error)
    })`;
    return { skip: reason, createDatabase: () => Promise.reject(new Error(reason)), stop: async () => {} };
  }
}

function serverAt(adminUrl: string, stopServer: () => void): TestPostgres {
  const admin = new pg.Pool({ connectionString: adminUrl, max: 2 });
  admin.on('error', () => {});
  return {
    skip: undefined,
    async createDatabase() {
      const schema = `tron_safety_test_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      const url = new URL(adminUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const pools: pg.Pool[] = [];
      return {
        url: url.toString(),
        schema,
        pool(max = 10) {
          const pool = new pg.Pool({ connectionString: url.toString(), max });
          pool.on('error', () => {});
          pools.push(pool);
          return pool;
        },
        async drop() {
          await Promise.all(pools.filter((p) => !p.ended).map((p) => p.end()));
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        },
      };
    },
    async stop() {
      await admin.end();
      stopServer();
    },
  };
}

/**
 * A PostgreSQL server of the caller's own (a throwaway cluster, whatever TEST_DATABASE_URL says):
 * for a test that must stop its database (readiness, outage handling) without touching a shared one.
 */
export function startThrowawayPostgres(): Promise<{ url: string; stop: () => void }> {
  return startCluster();
}

async function startCluster(): Promise<{ url: string; stop: () => void }> {
  const bin = postgresBin();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'tron-safety-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const [command, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
      : [join(bin, tool), args];
    const result = spawnSync(command as string, argv as string[], { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0)
      throw new Error(`${tool} failed: ${(result.stderr || result.stdout || result.error?.message || '').trim()}`);
  };
  const data = join(dir, 'data');
  const stop = () => {
    spawnSync(
      asRoot ? 'runuser' : join(bin, 'pg_ctl'),
      [...(asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []), '-D', data, '-m', 'immediate', 'stop'],
      { stdio: 'ignore', timeout: 30_000 },
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    copyTemplateCluster(bin, data, run, asRoot ? dir : null);
    const port = await freePort();
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=200`,
      'start',
    ]);
    // The cluster must not outlive the test process: normal end, uncaught error, or interrupted
    // (a signal ends Node without 'exit' unless someone listens).
    const onSignal = (signal: NodeJS.Signals) => {
      stop();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('exit', stop);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      stop: () => {
        process.removeListener('exit', stop);
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
        stop();
      },
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/**
 * initdb takes seconds, and every test file needs a cluster: the first one initializes a
 * template data directory in the temp dir (kept as a cache, per server version and user) and
 * every cluster starts from a copy of it. Concurrent first runs each build one; the first rename
 * wins and the others discard theirs.
 */
function copyTemplateCluster(
  bin: string,
  data: string,
  run: (tool: string, args: string[]) => void,
  ownedDir: string | null,
) {
  const template = join(tmpdir(), `tron-safety-pg-template-${basename(dirname(bin))}-${process.getuid?.() ?? 'user'}`);
  if (!existsSync(join(template, 'PG_VERSION'))) {
    const building = mkdtempSync(join(tmpdir(), 'tron-safety-pg-build-'));
    try {
      if (ownedDir) chownSync(building, statSync(ownedDir).uid, statSync(ownedDir).gid);
      run('initdb', ['-D', join(building, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
      try {
        renameSync(join(building, 'data'), template);
      } catch {
        // Another test file built the template first.
      }
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
  }
  const copied = spawnSync('cp', ['-a', template, data], { encoding: 'utf8', timeout: 60_000 });
  if (copied.status !== 0) throw new Error(`copying the template cluster failed: ${copied.stderr.trim()}`);
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const latest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!latest) throw new Error(`no initdb under ${root}/*/bin`);
  return join(root, latest, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
