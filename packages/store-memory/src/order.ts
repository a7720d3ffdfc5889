/**
 * The order of every list: oldest first, and entries created in the same millisecond by id, compared in
 * UTF-16 code units, as PostgreSQL's `ORDER BY created_at, id COLLATE "C"` (its byte order agrees for
 * the ids the core makes, UUIDs): both stores list ties alike, whatever the order of insertion.
 */
export function byCreation(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
