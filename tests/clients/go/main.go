// Runs the client checks through go-sql-driver/mysql with its default settings
// (server-side prepared statements) and prints one JSON line per check.
package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"os"

	"github.com/go-sql-driver/mysql"
)

type result struct {
	Check string `json:"check"`
	OK    bool   `json:"ok"`
	Rows  int    `json:"rows"`
	Code  uint16 `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
}

var out = json.NewEncoder(os.Stdout)

func report(check string, rows int, err error) {
	r := result{Check: check, OK: err == nil, Rows: rows}
	if err != nil {
		r.Error = err.Error()
		var my *mysql.MySQLError
		if errors.As(err, &my) {
			r.Code = my.Number
		}
	}
	_ = out.Encode(r)
}

func count(rows *sql.Rows, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	values := make([]any, len(cols))
	for i := range values {
		values[i] = new(any)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(values...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func main() {
	db, err := sql.Open("mysql", os.Args[1]) // user:password@tcp(host:port)/ndbinfo
	if err != nil {
		report("connect", 0, err)
		return
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	report("connect", 0, db.Ping())

	n, err := count(db.Query("SELECT node_id, uptime, status FROM ndbinfo.nodes WHERE node_id >= ?", 1))
	report("prepared", n, err)
	var id int64
	var uptime uint64
	err = db.QueryRow("SELECT node_id, uptime FROM ndbinfo.nodes WHERE node_id = ?", 1).Scan(&id, &uptime)
	report("prepared_typed", int(id), err)

	n, err = count(db.Query("SELECT * FROM ndbinfo.nodes"))
	report("nodes", n, err)
	n, err = count(db.Query("SHOW GLOBAL STATUS LIKE 'Ndb%'"))
	report("status", n, err)
	n, err = count(db.Query("SHOW ENGINE NDBCLUSTER STATUS"))
	report("engine_status", n, err)
}
