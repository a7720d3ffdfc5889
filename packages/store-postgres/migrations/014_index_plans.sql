-- begin_check_record and finish_check_record plan every statement with index scans: no sequential
-- or bitmap scans inside them. Each of their statements reads rows by key or a key range, but
-- PL/pgSQL caches a statement's plan for the connection's life: planned while the churned tables
-- (quota_reservations, concurrency_slots) were a page or two, the expired-reservation and live-slot
-- counts stayed sequential scans as the tables grew between vacuums, to hundreds of pages each
-- (160 to 440 buffer reads per check on quota_reservations alone at 8 clients); bitmap scans,
-- the planner's other choice, never mark dead index entries, so each count visited them all again.
-- A plain index scan marks the dead entries it meets, and the next one skips them. Set on the
-- functions, so a restatement (CREATE OR REPLACE) must carry the same SET clauses.
ALTER FUNCTION begin_check_record SET enable_seqscan = off;
ALTER FUNCTION begin_check_record SET enable_bitmapscan = off;
ALTER FUNCTION finish_check_record SET enable_seqscan = off;
ALTER FUNCTION finish_check_record SET enable_bitmapscan = off;
