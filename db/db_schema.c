/* The schema of a flipgraph database, one migration per version.
 *
 * Migrations are applied in order inside one BEGIN IMMEDIATE transaction
 * (db_open.c), then PRAGMA user_version is set to the last one: a crash
 * half-way leaves the file at its old version, whole.  To change the schema,
 * append a step here and raise DB_SCHEMA_VERSION in db.h; never edit a step
 * that has shipped.  docs/db.md describes every column.
 */
#include "db_internal.h"

const db_migration db_migrations[] = {
    {1,
     /* Runs come first: schemes name the run that found them. */
     "CREATE TABLE runs (\n"
     "  id        INTEGER PRIMARY KEY,\n"
     "  uid       TEXT NOT NULL UNIQUE,\n"   /* random 128-bit hex: merges match runs by it */
     "  n         INTEGER NOT NULL,\n"
     "  m         INTEGER NOT NULL,\n"
     "  p         INTEGER NOT NULL,\n"
     "  params    TEXT NOT NULL,\n"          /* key=value lines, enough to resume */
     "  seed      INTEGER NOT NULL,\n"       /* the uint64 seed's bits as a signed 64-bit integer */
     "  backend   TEXT NOT NULL,\n"
     "  device    TEXT NOT NULL,\n"
     "  host      TEXT NOT NULL,\n"
     "  version   TEXT NOT NULL,\n"
     "  started   TEXT NOT NULL,\n"
     "  ended     TEXT,\n"
     "  status    TEXT NOT NULL CHECK (status IN ('running','finished','interrupted','failed')),\n"
     "  flips     INTEGER NOT NULL DEFAULT 0,\n"
     "  best_rank INTEGER\n"
     ");\n"
     "CREATE TABLE schemes (\n"
     "  id        INTEGER PRIMARY KEY,\n"
     "  n         INTEGER NOT NULL,\n"
     "  m         INTEGER NOT NULL,\n"
     "  p         INTEGER NOT NULL,\n"
     "  ring      TEXT NOT NULL CHECK (ring IN ('f2','z')),\n"
     "  rank      INTEGER NOT NULL,\n"
     "  terms     BLOB NOT NULL,\n"          /* scheme_canonical_bytes */
     "  hash      TEXT NOT NULL,\n"          /* XXH3-64 of terms, 16 hex digits, big-endian */
     "  found_at  TEXT NOT NULL,\n"
     "  run_id    INTEGER REFERENCES runs(id),\n"
     "  parent_id INTEGER REFERENCES schemes(id),\n"
     "  source    TEXT NOT NULL,\n"
     "  flips     INTEGER,\n"
     "  seconds   REAL,\n"
     "  UNIQUE (ring, hash)\n"
     ");\n"
     /* db best and db list: the lowest rank of a format is the first row of this index. */
     "CREATE INDEX schemes_by_format ON schemes (n, m, p, ring, rank, id);\n"
     "CREATE INDEX schemes_by_run ON schemes (run_id);\n"
     "CREATE INDEX schemes_by_parent ON schemes (parent_id);\n"
     "CREATE TABLE improvements (\n"
     "  run_id    INTEGER NOT NULL REFERENCES runs(id),\n"
     "  seconds   REAL NOT NULL,\n"
     "  rank      INTEGER NOT NULL\n"
     ");\n"
     "CREATE INDEX improvements_by_run ON improvements (run_id, seconds);\n"},
    {2,
     /* Is a run that says "running" still alive?  Its process (host is
      * there already), when that process started, the boot, and its last
      * sign of life (db_run_gone).  NULL in rows of schema 1. */
     "ALTER TABLE runs ADD COLUMN pid INTEGER;\n"
     "ALTER TABLE runs ADD COLUMN pid_start INTEGER;\n"  /* /proc/PID/stat starttime */
     "ALTER TABLE runs ADD COLUMN boot_id TEXT;\n"       /* /proc/sys/kernel/random/boot_id */
     "ALTER TABLE runs ADD COLUMN heartbeat TEXT;\n"     /* UTC, like started */
     /* The verdict of the last `flipgraph db check` that found problems
      * (none when the last one was clean): writers warn while it is there. */
     "CREATE TABLE checks (\n"
     "  at           TEXT NOT NULL,\n"
     "  problems     INTEGER NOT NULL,\n"
     "  integrity_ok INTEGER NOT NULL\n"
     ");\n"},
};

const int db_migration_count = (int)(sizeof db_migrations / sizeof *db_migrations);

_Static_assert(sizeof db_migrations / sizeof *db_migrations == DB_SCHEMA_VERSION,
               "one migration per schema version");
