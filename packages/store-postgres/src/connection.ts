import pg from 'pg';

/** How the stores reach PostgreSQL: a pool the host owns, or a URL the stores open a pool for. */
export type PostgresConnectionOptions =
  | { pool: pg.Pool }
  | {
      connectionString: string;
      /** Pool size per process (default 10). Every host process opens its own pool. */
      max?: number;
      /** Server-side cap on one statement (default 5000 ms): a stuck query fails instead of holding a request. */
      statementTimeoutMs?: number;
      /** Server-side cap on waiting for a row or advisory lock (default 5000 ms). */
      lockTimeoutMs?: number;
      /** Connecting to the server (default 5000 ms). */
      connectionTimeoutMs?: number;
      applicationName?: string;
      /**
       * Schema holding the tables (default: the server's search_path, normally `public`), for
       * sharing a database with other applications. Must already exist.
       */
      schema?: string;
    };

export interface PoolHandle {
  pool: pg.Pool;
  /** Ends the pool if the stores opened it; a pool passed in stays the host's to end. */
  close(): Promise<void>;
}

export function openPool(options: PostgresConnectionOptions): PoolHandle {
  if ('pool' in options) return { pool: options.pool, close: async () => {} };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    statement_timeout: options.statementTimeoutMs ?? 5000,
    lock_timeout: options.lockTimeoutMs ?? 5000,
    // A process that hangs inside a transaction must not hold row or advisory locks for long.
    idle_in_transaction_session_timeout: 10_000,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    application_name: options.applicationName ?? 'tron-safety',
    ...(options.schema === undefined ? {} : { options: `-c search_path=${schemaName(options.schema)}` }),
  });
  // An idle client losing its connection emits here; without a listener the process would crash.
  // The next query gets a fresh connection, and a failing query rejects as a store failure.
  pool.on('error', () => {});
  return { pool, close: () => pool.end() };
}

/**
 * Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it
 * rejects. A connection whose ROLLBACK fails is discarded rather than returned to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
      client.release();
    } catch (rollbackError) {
      client.release(rollbackError instanceof Error ? rollbackError : true);
    }
    throw error;
  }
}

/** A schema name safe to put in `search_path` unquoted. */
function schemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new RangeError('schema must be a lower-case SQL identifier');
  return schema;
}
