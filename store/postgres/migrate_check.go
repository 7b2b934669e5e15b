package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A migration that adds constraints adds them NOT VALID and validates them
// at its end (ALTER TABLE … VALIDATE CONSTRAINT …, one statement a line):
// on a sound database each rule costs one scan. When a validation fails,
// PostgreSQL names one row at most, in SQLSTATE terms; Open instead names
// the rows that break each rule, from a second transaction that runs the
// migration without its validations and asks every rule left unvalidated
// which rows break it, then rolls back. Nothing is changed either way.

// brokenRowsShown is how many rows a refused migration names per rule.
const brokenRowsShown = 5

// BrokenRule is a schema rule a database breaks: its constraint, the table,
// the rule as PostgreSQL states it, and the first rows that break it.
type BrokenRule struct {
	Constraint string
	Table      string
	Rule       string
	Rows       []string // "id=… (status=weird)": the row's key, then the values the rule reads
	Count      int      // how many rows break it
}

// ErrMigrationRefused is returned by Open when a migration's rules do not
// hold of the data already stored: the database is left as it was.
type ErrMigrationRefused struct {
	Migration string
	Broken    []BrokenRule
}

func (e *ErrMigrationRefused) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "migration %s refused: the database holds rows that break the rules it adds; nothing was changed. Fix or delete these rows, then start again:", e.Migration)
	for _, r := range e.Broken {
		fmt.Fprintf(&b, "\n  %s: %d row(s) break %s (%s)", r.Table, r.Count, r.Constraint, r.Rule)
		for _, row := range r.Rows {
			fmt.Fprintf(&b, "\n    %s %s", r.Table, row)
		}
		if more := r.Count - len(r.Rows); more > 0 {
			fmt.Fprintf(&b, "\n    … and %d more", more)
		}
	}
	return b.String()
}

// breaksConstraint says whether err is PostgreSQL refusing data for a rule:
// a foreign key or a check that does not hold.
func breaksConstraint(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "23503" || pg.Code == "23514")
}

// withoutValidations is a migration's SQL without its VALIDATE statements.
func withoutValidations(sql string) string {
	var keep []string
	for _, line := range strings.Split(sql, "\n") {
		if strings.Contains(strings.ToUpper(line), "VALIDATE CONSTRAINT") && !strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// diagnoseConstraints explains why migration failed validating its rules:
// in a transaction it rolls back, it brings the schema from version current
// to just before failed, applies failed without its validations, and asks
// each unvalidated rule of the schema for the rows that break it.
func (db *DB) diagnoseConstraints(ctx context.Context, ms []migration, current int, failed migration) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, int32(migrateLock)); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current || m.version > failed.version {
			continue
		}
		sql := m.sql
		if m.version == failed.version {
			sql = withoutValidations(sql)
		}
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	rules, err := unvalidatedRules(ctx, tx)
	if err != nil {
		return err
	}
	refused := &ErrMigrationRefused{Migration: failed.name}
	for _, r := range rules {
		broken, err := r.brokenRows(ctx, tx)
		if err != nil {
			return fmt.Errorf("check %s: %w", r.name, err)
		}
		if broken.Count > 0 {
			refused.Broken = append(refused.Broken, broken)
		}
	}
	if len(refused.Broken) == 0 {
		return nil
	}
	return refused
}

// rule is one unvalidated constraint of the schema, read from the catalog.
type rule struct {
	name, kind, table, def string
	key                    []string // the table's primary key
	cols                   []string // the columns the rule reads
	parent                 string   // foreign key: the table referred to
	parentCols             []string
}

func unvalidatedRules(ctx context.Context, tx pgx.Tx) ([]rule, error) {
	rows, err := tx.Query(ctx, `
		SELECT c.conname, c.contype::text, t.relname, pg_get_constraintdef(c.oid),
			(SELECT array_agg(a.attname::text ORDER BY k.i) FROM pg_index x CROSS JOIN unnest(x.indkey) WITH ORDINALITY k(n, i)
				JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n
				WHERE x.indrelid = c.conrelid AND x.indisprimary),
			(SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
				JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
			coalesce(p.relname, ''),
			coalesce((SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
				JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n), '{}')
		FROM pg_constraint c
		JOIN pg_class t ON t.oid = c.conrelid
		LEFT JOIN pg_class p ON p.oid = c.confrelid
		WHERE NOT c.convalidated AND c.contype IN ('f', 'c') AND t.relnamespace = current_schema()::regnamespace
		ORDER BY t.relname, c.conname`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []rule
	for rows.Next() {
		var r rule
		if err := rows.Scan(&r.name, &r.kind, &r.table, &r.def, &r.key, &r.cols, &r.parent, &r.parentCols); err != nil {
			return nil, err
		}
		r.def = strings.TrimSuffix(r.def, " NOT VALID")
		out = append(out, r)
	}
	return out, rows.Err()
}

// brokenRows asks which rows of the rule's table break it: for a foreign
// key, the rows whose (non-null) reference names no row; for a check, the
// rows for which it is false (null passes a check, as PostgreSQL has it).
func (r rule) brokenRows(ctx context.Context, tx pgx.Tx) (BrokenRule, error) {
	out := BrokenRule{Constraint: r.name, Table: r.table, Rule: r.def}
	ident := func(s string) string { return pgx.Identifier{s}.Sanitize() }
	var where string
	switch r.kind {
	case "f":
		var notNull, match []string
		for i, c := range r.cols {
			notNull = append(notNull, "x."+ident(c)+" IS NOT NULL")
			match = append(match, "p."+ident(r.parentCols[i])+" = x."+ident(c))
		}
		where = strings.Join(notNull, " AND ") + " AND NOT EXISTS (SELECT 1 FROM " + ident(r.parent) + " p WHERE " + strings.Join(match, " AND ") + ")"
		out.Rule = fmt.Sprintf("%s names no row of %s", strings.Join(r.cols, ", "), r.parent)
	case "c":
		expr, ok := strings.CutPrefix(r.def, "CHECK ")
		if !ok {
			return out, fmt.Errorf("unexpected check %q", r.def)
		}
		where = "NOT " + expr
	}
	describe := func(cols []string) string {
		var parts []string
		for _, c := range cols {
			parts = append(parts, fmt.Sprintf("'%s=' || coalesce(x.%s::text, 'null')", c, ident(c)))
		}
		return strings.Join(parts, " || ', ' || ")
	}
	if len(r.key) == 0 {
		r.key = []string{"ctid"}
	}
	order := make([]string, len(r.key))
	for i, k := range r.key {
		order[i] = "x." + ident(k)
	}
	q := "SELECT " + describe(r.key) + ", " + describe(r.cols) + ", count(*) OVER () FROM " + ident(r.table) + " x WHERE " + where +
		" ORDER BY " + strings.Join(order, ", ") + fmt.Sprintf(" LIMIT %d", brokenRowsShown)
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return out, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, vals string
		if err := rows.Scan(&key, &vals, &out.Count); err != nil {
			return out, err
		}
		out.Rows = append(out.Rows, key+" ("+vals+")")
	}
	return out, rows.Err()
}
