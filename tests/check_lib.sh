# The tally of the shell checks (tests/check_*.sh source it): `check NAME CMD
# ARGS...` runs CMD and counts it passed when it succeeds; `check_end` prints
# "N passed, N failed" and fails when one did (ctest reads the exit status).
pass=0 fail=0
check() { # name, then a command that succeeds when the check holds
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; fi
}
check_end() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
