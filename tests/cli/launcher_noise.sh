# Sourced by the CLI test runners (run_cli_tests.sh, tests/hostile/run_hostile.sh).
#
# drop_launcher_noise FILE: removes from FILE (a run's stderr) the warnings Open MPI's launcher prints
# now and then when it tears down a job whose ranks exited non-zero, from its bundled libevent:
#   [warn] Epoll MOD(1) on fd 26 failed. Old events were 6; ... : Bad file descriptor
# (open-mpi/ompi#2004 and #5520: a race in the runtime's I/O forwarding, not fixed in the 4.1
# series). They are not adasketch's output, so the one-line error checks do not count them; the
# dropped lines are kept in FILE.launcher.
drop_launcher_noise() {
  local pattern='^\[warn\] Epoll (ADD|MOD|DEL)\([0-9]+\) on fd [0-9]+ failed\.'
  grep -qE "$pattern" "$1" || return 0
  grep -E "$pattern" "$1" >"$1.launcher"
  grep -vE "$pattern" "$1" >"$1.tmp"
  mv "$1.tmp" "$1"
}
