// Package faults holds piweb's kill -9 and fault-injection harness
// (faults_test.go): random SIGKILLs during every mutating operation (append
// through rename and label, fork, migrate, repair, delete and restore
// through a running server), a full tmpfs, a read-only folder and two
// writers on one file, reporting files intact, torn lines and leftovers.
// It is heavy and needs root (mounts), so it runs when PIWEB_FAULTS=1:
// bench/faults.sh (beside this folder) runs it and prints the report. With PIWEB_FAULTS_STRICT=1
// any damage fails the test.
package faults
