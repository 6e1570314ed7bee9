/*
 * sqlite.c - a real-world workload: sqlite's amalgamation (sqlite3.c, from
 * the npm package better-sqlite3, fetched by bench/run.py) driven the way a
 * small application drives it.  An in-memory database; N rows inserted in
 * one transaction through a prepared statement; an index built; then a few
 * queries (point lookups through the index, a range scan, an aggregate with
 * GROUP BY, an update and a delete).  The checksum of every query's results
 * is the "result" line, the same in every build.
 *
 *   sqlite N          (N rows; bench/run.py passes the size)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
#include "bench.h"

static sqlite3 *db;
static uint64_t sum;

static void die(const char *what)
{
	fprintf(stderr, "sqlite: %s: %s\n", what, sqlite3_errmsg(db));
	exit(1);
}

static void exec(const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite: %s: %s\n", sql, err ? err : "?");
		exit(1);
	}
}

static sqlite3_stmt *prepare(const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		die(sql);
	return st;
}

/* Run a prepared statement to the end, folding every column into the sum. */
static void drain(sqlite3_stmt *st)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			if (sqlite3_column_type(st, c) == SQLITE_TEXT) {
				const unsigned char *t = sqlite3_column_text(st, c);
				for (; *t; t++)
					sum = sum * 31 + *t;
			} else {
				sum = sum * 31 + (uint64_t)sqlite3_column_int64(st, c);
			}
		}
	}
	if (rc != SQLITE_DONE)
		die("step");
	sqlite3_reset(st);
}

int main(int argc, char **argv)
{
	long n = (long)bench_arg(argc, argv, 1, 20000);
	char name[32];

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		die("open");
	exec("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, grp INTEGER, name TEXT)");

	/* inserts in one transaction, through one prepared statement */
	exec("BEGIN");
	sqlite3_stmt *ins = prepare("INSERT INTO t(k, grp, name) VALUES(?1, ?2, ?3)");
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;     /* xorshift: the same keys every run */
		snprintf(name, sizeof(name), "n%lu", (unsigned long)(x % 100000));
		sqlite3_bind_int64(ins, 1, (sqlite3_int64)(x % 1000003));
		sqlite3_bind_int(ins, 2, (int)(x % 97));
		sqlite3_bind_text(ins, 3, name, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(ins) != SQLITE_DONE)
			die("insert");
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	exec("COMMIT");

	exec("CREATE INDEX t_k ON t(k)");

	/* point lookups through the index */
	sqlite3_stmt *get = prepare("SELECT id, name FROM t WHERE k = ?1");
	for (long i = 0; i < n / 4; i++) {
		sqlite3_bind_int64(get, 1, (sqlite3_int64)((i * 7919) % 1000003));
		drain(get);
	}
	sqlite3_finalize(get);

	/* a range scan, an aggregate, an update and a delete */
	sqlite3_stmt *q = prepare("SELECT count(*), sum(k) FROM t WHERE k BETWEEN 1000 AND 500000");
	drain(q);
	sqlite3_finalize(q);
	q = prepare("SELECT grp, count(*), max(name) FROM t GROUP BY grp ORDER BY grp");
	drain(q);
	sqlite3_finalize(q);
	exec("UPDATE t SET name = name || 'x' WHERE grp = 7");
	exec("DELETE FROM t WHERE grp = 11");
	q = prepare("SELECT count(*), sum(length(name)) FROM t");
	drain(q);
	sqlite3_finalize(q);

	sqlite3_close(db);
	printf("result %llu\n", (unsigned long long)sum);
	BENCH_PRINT_CALLS();
	return 0;
}
