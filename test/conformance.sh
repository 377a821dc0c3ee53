#!/usr/bin/env bash
# conformance.sh runs every client scenario an installed MCP conformance suite
# lists (`conformance list --client`) against a client program, each in a run
# of its own, and prints one line per scenario (PASS, XFAIL: failed as
# expected, FAIL) and a count. `make conformance`
# and `make conformance-next` call it; docs/CONFORMANCE.md explains the output.
#
# usage: test/conformance.sh [options] NODE_MODULES CLIENT
#   NODE_MODULES  a node_modules folder holding @modelcontextprotocol/conformance;
#                 the node first in PATH must be Node 22 or later (make puts
#                 the pinned one of test/node there)
#   CLIENT        the program the suite runs as `CLIENT <serverURL>`
# options:
#   -e FILE   expected failures, in the suite's own baseline format
#             (`client:` followed by `- name` lines, or `client: [a, b]`).
#             A failing scenario not in FILE fails the run; so does one in
#             FILE that passes, or a name in FILE the suite does not list.
#   -r        report only: print the table, always exit 0
#   -j N      run up to N auth/* scenarios at once (default 1). Every other
#             scenario runs alone: sse-retry checks reconnect timing and can
#             fail when the machine is busy (PEERS.md).
#   -n LABEL  prefix of the summary lines (default: conformance)
#   -v        print the suite's output of every failing scenario, not only
#             of the unexpected ones
#
# Exit status: 0 when the table matches FILE (or with -r), 1 when it does not,
# 2 when the suite cannot be run or lists no scenarios (even with -r: a broken
# call is not a report).
set -uo pipefail

expected="" report=0 jobs=1 label=conformance verbose=0
while getopts "e:rj:n:v" opt; do
	case $opt in
	e) expected=$OPTARG ;;
	r) report=1 ;;
	j) jobs=$OPTARG ;;
	n) label=$OPTARG ;;
	v) verbose=1 ;;
	*) echo "usage: $0 [-e FILE] [-r] [-j N] [-n LABEL] [-v] NODE_MODULES CLIENT" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 2 ]; then
	echo "usage: $0 [-e FILE] [-r] [-j N] [-n LABEL] [-v] NODE_MODULES CLIENT" >&2
	exit 2
fi
modules=$1 client=$2
# The suite runs in a temporary folder: make both paths absolute.
[[ $modules == /* ]] || modules=$PWD/$modules
[[ $client == /* ]] || client=$PWD/$client
suite=$modules/.bin/conformance

die() { echo "$label: $*" >&2; exit 2; }
[ -x "$suite" ] || die "no conformance suite at $suite (run the install target first)"
[ -x "$client" ] || die "no client program at $client"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j wants a positive number, not $jobs"
[ -z "$expected" ] || [ -r "$expected" ] || die "cannot read $expected"

. "$(dirname "${BASH_SOURCE[0]}")/conformance-lib.sh"
node=$(node22) || die "the suite needs Node 22 or later first in PATH, not $(node --version 2>/dev/null || echo none) (make puts test/node's there)"

version=$("$suite" --version 2>/dev/null | strip_ansi | tr -d '[:space:]')
mapfile -t scenarios < <(scenario_list "$suite" client)
[ "${#scenarios[@]}" -gt 0 ] || die "\`conformance list --client\` listed no scenarios"
declare -A want_fail=()
if [ -n "$expected" ]; then
	while IFS= read -r name; do want_fail[$name]=1; done < <(expected_list "$expected" client)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS

# run_one runs scenario number $1 and leaves its output in $work/$1.log and
# its exit status in $work/$1.rc. The suite's own 30 s client timeout kills
# only the shell it starts (PEERS.md), so an outer timeout bounds the run; the
# suite runs in the temporary folder so nothing it writes lands here.
run_one() {
	local i=$1 rc
	(cd "$work" && exec timeout -k 5 90 "$suite" client --command "$client" --scenario "${scenarios[$i]}") \
		>"$work/$i.log" 2>&1 </dev/null
	rc=$?
	echo "$rc" >"$work/$i.rc"
}

for i in "${!scenarios[@]}"; do
	[[ ${scenarios[$i]} == auth/* ]] || run_one "$i"
done
for i in "${!scenarios[@]}"; do
	[[ ${scenarios[$i]} == auth/* ]] || continue
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	run_one "$i" &
done
wait

# why prints the reason a run failed, from the suite's output: the client's
# exit code or timeout and the ids of the checks that failed or warned.
why() {
	local log=$1 ids ended="" code
	ids=$(strip_ansi <"$log" | sed -n 's/^[^[]*\[\([^]]*\)\][[:space:]]*\(FAILURE\|WARNING\).*/\1/p' |
		sed 's/[[:space:]]*$//' | awk '!seen[$0]++' | paste -sd, - | sed 's/,/, /g')
	if grep -q 'Client timed out' "$log"; then
		ended="client timed out"
	elif code=$(sed -n 's/^Client exited with code \([0-9-]*\).*/\1/p' "$log" | head -n1) && [ -n "$code" ]; then
		ended="client exit $code"
	fi
	[ ${#ids} -le 110 ] || ids="${ids:0:107}..."
	local out=$ended
	[ -z "$ids" ] || out="${out:+$out; }failed: $ids"
	echo "$out"
}

width=0
for s in "${scenarios[@]}"; do [ ${#s} -le $width ] || width=${#s}; done
passed=0 failed=0 auth_passed=0 auth_failed=0
unexpected=() stale=() expected_failed=0
echo "$label: @modelcontextprotocol/conformance ${version:-?}, ${#scenarios[@]} client scenarios, $(($SECONDS - start)) s"
for i in "${!scenarios[@]}"; do
	s=${scenarios[$i]} rc=$(cat "$work/$i.rc" 2>/dev/null || echo 2)
	note=""
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		[[ $s == auth/* ]] && auth_passed=$((auth_passed + 1))
		if [ -n "${want_fail[$s]:-}" ]; then
			stale+=("$s"); note="  STALE: listed as expected to fail"
		fi
		if [ -n "$note" ]; then printf 'PASS  %-*s%s\n' "$width" "$s" "$note"; else echo "PASS  $s"; fi
	else
		failed=$((failed + 1))
		[[ $s == auth/* ]] && auth_failed=$((auth_failed + 1))
		[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo "Client timed out (outer timeout)" >>"$work/$i.log"
		# XFAIL: failed as FILE says it does. Only a failure nobody
		# expected (or, without FILE, any) reads FAIL.
		verdict=FAIL
		if [ -n "${want_fail[$s]:-}" ]; then
			expected_failed=$((expected_failed + 1)); verdict=XFAIL
		elif [ -n "$expected" ]; then
			unexpected+=("$i"); note="UNEXPECTED"
		fi
		reason=$(why "$work/$i.log")
		printf '%-5s %-*s  %s\n' "$verdict" "$width" "$s" "${note:+$note; }$reason"
	fi
done

unknown=()
for name in "${!want_fail[@]}"; do
	found=0
	for s in "${scenarios[@]}"; do [ "$s" = "$name" ] && found=1 && break; done
	[ $found -eq 1 ] || unknown+=("$name")
done

for i in "${unexpected[@]}"; do
	echo; echo "---- $label: output of ${scenarios[$i]} ----"; strip_ansi <"$work/$i.log" | cat -s
done
if [ $verbose -eq 1 ]; then
	for i in "${!scenarios[@]}"; do
		rc=$(cat "$work/$i.rc"); [ "$rc" -ne 0 ] || continue
		[[ " ${unexpected[*]} " == *" $i "* ]] && continue
		echo; echo "---- $label: output of ${scenarios[$i]} ----"; strip_ansi <"$work/$i.log" | cat -s
	done
fi

# Worded so no reader of test logs takes the expected failures for a
# failed run: the verdict is the baseline check below.
echo "$label: $passed scenarios pass, $failed do not"
echo "$label: of them auth/*: $auth_passed pass, $auth_failed do not"
[ -z "$expected" ] && exit 0
echo "$label: $expected_failed of the failures are expected ($expected)"
status=0
baseline_verdict "$label" "$expected" || status=1
[ $report -eq 1 ] && exit 0
exit $status
