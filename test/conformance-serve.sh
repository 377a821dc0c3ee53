#!/usr/bin/env bash
# conformance-serve.sh runs every server scenario an installed MCP
# conformance suite lists (`conformance list --server`) against
# `switchboard serve --http`, with go-sdk's everything-server as its only
# upstream (with -m, two more beside it), each scenario in a suite run of its
# own, and prints one line per scenario (PASS, XFAIL: failed as expected,
# FAIL) and a count. `make conformance-serve`,
# `make conformance-serve-next` and `make conformance-serve-prefixed` call it;
# docs/CONFORMANCE.md reads the output.
#
# usage: test/conformance-serve.sh [options] NODE_MODULES EVERYTHING [SWITCHBOARD]
#   NODE_MODULES  a node_modules folder holding @modelcontextprotocol/conformance;
#                 the node first in PATH must be Node 22 or later (make puts
#                 the pinned one of test/node there)
#   EVERYTHING    go-sdk's conformance everything-server binary
#   SWITCHBOARD   bin/switchboard (not needed for -t direct*)
# options:
#   -t TARGET  what the suite talks to (default stdio):
#                stdio            switchboard serve, the everything-server its
#                                 stdio upstream
#                http             switchboard serve, the everything-server an
#                                 HTTP upstream (-http ADDR -stateless=false)
#                direct           the everything-server itself (-http ADDR
#                                 -stateless=false): the reference table
#                direct-stateless the same with -stateless (2026-07-28 only)
#   -a ARGS    arguments of `serve` after --http ADDR (default --no-prefix;
#              -a '' for none: serve's own server__name names)
#   -m         many upstreams (-t stdio or http): besides the everything-server
#              (named "everything"), the config names npm's
#              @modelcontextprotocol/server-everything from NODE_MODULES
#              ("server-everything": the pinned Node, dist/index.js stdio)
#              and the demo server ("demo": SWITCHBOARD demo-server --name
#              demo), both over stdio whatever -t says. serve runs with
#              --verbose, and at the end the names it logged as colliding
#              or left out (its warnings) are printed, each once
#   -p VERSION pin the protocol version switchboard speaks with the upstream
#              (its config's "protocolVersion", e.g. 2025-11-25); default: none,
#              so over stdio it negotiates the newest both speak
#   -s REGEX   run only the scenarios whose name matches REGEX (grep -E)
#   -e FILE    expected failures, in the suite's own baseline format
#              (`server:` followed by `- name` lines, or `server: [a, b]`).
#              A failing scenario not in FILE fails the run; so does one in
#              FILE that passes, or a name in FILE the suite does not list.
#   -r         report only: print the table, always exit 0
#   -n LABEL   prefix of the summary lines (default: conformance-serve)
#   -l DIR     keep the logs (the suite's per scenario, the servers') in DIR
#   -v         print the suite's output of every failing scenario, not only
#              of the unexpected ones
#
# The servers listen on free loopback ports. The gateway counts as started
# when it prints `serving on http://` on stderr, the everything-server when
# its port takes a connection; both waits are polled and bounded. A server
# that exits during a scenario is started again for the next one, and the
# scenario's line says so. At the end both are stopped (SIGTERM, then SIGKILL
# after a bound), and any process either left behind fails the run.
#
# Exit status: 0 when the table matches FILE (or with -r), 1 when it does not
# or a process was left behind, 2 when the suite or the servers cannot be run
# or the suite lists no scenarios (even with -r: a broken call is not a
# report).
set -euo pipefail

target=stdio serve_args="--no-prefix" pin="" only="" expected="" report=0 label=conformance-serve logdir="" verbose=0 many=0
usage() {
	echo "usage: $0 [-t stdio|http|direct|direct-stateless] [-a ARGS] [-p VERSION] [-m] [-s REGEX] [-e FILE] [-r] [-n LABEL] [-l DIR] [-v] NODE_MODULES EVERYTHING [SWITCHBOARD]" >&2
	exit 2
}
while getopts "t:a:p:ms:e:rn:l:v" opt; do
	case $opt in
	t) target=$OPTARG ;;
	a) serve_args=$OPTARG ;;
	p) pin=$OPTARG ;;
	m) many=1 ;;
	s) only=$OPTARG ;;
	e) expected=$OPTARG ;;
	r) report=1 ;;
	n) label=$OPTARG ;;
	l) logdir=$OPTARG ;;
	v) verbose=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] && [ $# -le 3 ] || usage
modules=$1 everything=$2 switchboard=${3:-}
abs() { if [[ $1 == /* ]]; then echo "$1"; else echo "$PWD/$1"; fi; }
modules=$(abs "$modules") everything=$(abs "$everything")
[ -z "$switchboard" ] || switchboard=$(abs "$switchboard")
[ -z "$logdir" ] || { mkdir -p "$logdir" && logdir=$(cd "$logdir" && pwd); }
suite=$modules/.bin/conformance

die() { echo "$label: $*" >&2; exit 2; }
case $target in
stdio | http) gateway=1 ;;
direct | direct-stateless) gateway=0 ;;
*) die "-t wants stdio, http, direct or direct-stateless, not $target" ;;
esac
[ -x "$suite" ] || die "no conformance suite at $suite (run the install target first)"
[ -x "$everything" ] || die "no everything-server at $everything"
[ $gateway -eq 0 ] || [ -x "$switchboard" ] || die "no switchboard at ${switchboard:-(not given)}"
everything_js=$modules/@modelcontextprotocol/server-everything/dist/index.js
if [ $many -eq 1 ]; then
	[ $gateway -eq 1 ] || die "-m wants -t stdio or http: the other upstreams are serve's"
	[ -r "$everything_js" ] || die "no server-everything at $everything_js"
fi
[ -z "$expected" ] || [ -r "$expected" ] || die "cannot read $expected"

# Bounds, in tenths of a second for the polled waits.
ready_tenths=300  # a server's start: the gateway connects its upstream first
stop_tenths=50    # a server's exit after SIGTERM
scenario_limit=90 # one suite run, in seconds (its own timeouts are 30 s)

. "$(dirname "${BASH_SOURCE[0]}")/conformance-lib.sh"
node=$(node22) || die "the suite needs Node 22 or later first in PATH, not $(node --version 2>/dev/null || echo none) (make puts test/node's there)"

version=$("$suite" --version 2>/dev/null | strip_ansi | tr -d '[:space:]') || true
mapfile -t scenarios < <(scenario_list "$suite" server)
[ "${#scenarios[@]}" -gt 0 ] || die "\`conformance list --server\` listed no scenarios"
all_scenarios=("${scenarios[@]}")
if [ -n "$only" ]; then
	mapfile -t scenarios < <(printf '%s\n' "${scenarios[@]}" | grep -E -- "$only" || true)
	[ "${#scenarios[@]}" -gt 0 ] || die "no scenario matches -s $only"
fi
declare -A want_fail=()
if [ -n "$expected" ]; then
	while IFS= read -r name; do want_fail[$name]=1; done < <(expected_list "$expected" server)
fi

work=$(mktemp -d)
logs=${logdir:-$work}

# ---- processes ---------------------------------------------------------
# Each server runs in the background of this script; its pid is kept with
# its start time (field 22 of /proc/PID/stat), so a recycled pid is never
# taken for it. Before a server is stopped its descendants are noted the
# same way, and after, any of them still running is a leftover.
upstream_pid="" gateway_pid="" gateway_url="" leftovers=()
starttime() { awk '{ print $22 }' "/proc/$1/stat" 2>/dev/null || true; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

descendants() {
	local pid child
	for pid in "$@"; do
		for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
			echo "$child $(starttime "$child")"
			descendants "$child"
		done
	done
}

# stop PID NAME stops one server: SIGTERM, a bounded wait, then SIGKILL; then
# it checks the descendants noted before.
stop() {
	local pid=$1 name=$2 i p st kids
	alive "$pid" || { wait "$pid" 2>/dev/null || true; return 0; }
	kids=$(descendants "$pid")
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < stop_tenths; i++)); do alive "$pid" || break; sleep 0.1; done
	if alive "$pid"; then
		echo "$label: $name (pid $pid) did not exit $((stop_tenths / 10)) s after SIGTERM; killed" >&2
		kill -KILL "$pid" 2>/dev/null || true
		leftovers+=("$name (pid $pid) ignored SIGTERM")
	fi
	wait "$pid" 2>/dev/null || true
	# Children get the same bound to follow their parent out.
	while read -r p st; do
		[ -n "$p" ] || continue
		for ((i = 0; i < stop_tenths; i++)); do
			[ "$(starttime "$p")" = "$st" ] || break
			sleep 0.1
		done
		if [ "$(starttime "$p")" = "$st" ]; then
			leftovers+=("$name left pid $p running: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)")
			kill -KILL "$p" 2>/dev/null || true
		fi
	done <<<"$kids"
}

stop_all() {
	if [ -n "$gateway_pid" ]; then stop "$gateway_pid" "switchboard serve"; gateway_pid=""; fi
	if [ -n "$upstream_pid" ]; then stop "$upstream_pid" "everything-server"; upstream_pid=""; fi
}

cleanup() {
	stop_all
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port prints a loopback port that was free a moment ago. A server that
# then loses the port to another program exits at once and is started again.
free_port() {
	node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# start_upstream starts the everything-server over HTTP and waits until its
# port takes a connection.
start_upstream() {
	local stateless=$1 attempt port i
	for attempt in 1 2 3; do
		port=$(free_port)
		"$everything" -http "127.0.0.1:$port" -stateless="$stateless" >>"$logs/everything.log" 2>&1 </dev/null &
		upstream_pid=$!
		for ((i = 0; i < ready_tenths; i++)); do
			alive "$upstream_pid" || break
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				upstream_url="http://127.0.0.1:$port/mcp"
				return 0
			fi
			sleep 0.1
		done
		stop "$upstream_pid" everything-server
		upstream_pid=""
	done
	echo "$label: the everything-server did not listen; its log:" >&2
	tail -n 20 "$logs/everything.log" >&2
	return 1
}

# start_gateway writes the config naming the everything-server, starts
# switchboard serve on a free port and waits for its `serving on` line.
start_gateway() {
	local attempt port i sb
	local home=$work/home cfg=$work/config.json
	mkdir -p "$home/state" "$home/cache" "$home/config" "$home/project"
	local pinned=""
	[ -z "$pin" ] || pinned=", \"protocolVersion\": \"$pin\""
	local more=""
	# The others are not pinned: -p is about the everything-server.
	[ $many -eq 0 ] || more=$(printf ', "server-everything": {"command": "%s", "args": ["%s", "stdio"]}, "demo": {"command": "%s", "args": ["demo-server", "--name", "demo"]}' \
		"$node" "$everything_js" "$switchboard")
	if [ "$target" = stdio ]; then
		printf '{"mcpServers": {"everything": {"command": "%s"%s}%s}}\n' "$everything" "$pinned" "$more" >"$cfg"
	else
		start_upstream false || return 1
		printf '{"mcpServers": {"everything": {"type": "http", "url": "%s"%s}%s}}\n' "$upstream_url" "$pinned" "$more" >"$cfg"
	fi
	# The suite's sessions are the only clients: nothing of this user's is read.
	sb=("$switchboard" --config "$cfg" --no-discover --state-dir "$home/state" --cache-dir "$home/cache" --project "$home/project")
	# Only --verbose has serve log the names it gives up on or changes.
	[ $many -eq 0 ] || sb+=(--verbose)
	export XDG_CONFIG_HOME=$home/config XDG_STATE_HOME=$home/state XDG_CACHE_HOME=$home/cache
	"${sb[@]}" trust >>"$logs/switchboard.log" 2>&1 </dev/null || {
		echo "$label: switchboard trust failed; its log:" >&2
		tail -n 20 "$logs/switchboard.log" >&2
		return 1
	}
	for attempt in 1 2 3; do
		port=$(free_port)
		local mark
		mark=$(wc -l <"$logs/switchboard.log")
		# shellcheck disable=SC2086 # serve_args is a list of words
		"${sb[@]}" serve --http "127.0.0.1:$port" $serve_args >>"$logs/switchboard.log" 2>&1 </dev/null &
		gateway_pid=$!
		for ((i = 0; i < ready_tenths; i++)); do
			alive "$gateway_pid" || break
			# The line names the address it listens on: that is the URL.
			gateway_url=$(tail -n +"$((mark + 1))" "$logs/switchboard.log" |
				sed -n 's|.*serving on \(http://[^[:space:]]*\).*|\1|p' | head -n 1)
			[ -z "$gateway_url" ] || return 0
			sleep 0.1
		done
		stop "$gateway_pid" "switchboard serve"
		gateway_pid=""
	done
	echo "$label: switchboard serve did not start; its log:" >&2
	tail -n 20 "$logs/switchboard.log" >&2
	return 1
}

start_servers() {
	local t0=$SECONDS
	if [ $gateway -eq 1 ]; then
		start_gateway || return 1
		url=$gateway_url
	else
		start_upstream "$([ "$target" = direct-stateless ] && echo true || echo false)" || return 1
		url=$upstream_url
	fi
	started_in=$((SECONDS - t0))
}

# servers_alive says which server has exited, if any.
servers_down() {
	if [ -n "$upstream_pid" ] && ! alive "$upstream_pid"; then echo "the everything-server exited"; fi
	if [ -n "$gateway_pid" ] && ! alive "$gateway_pid"; then echo "switchboard serve exited"; fi
}

# ---- run ---------------------------------------------------------------
start=$SECONDS
start_servers || die "the servers could not be started (target $target)"
declare -A crashed=()
for i in "${!scenarios[@]}"; do
	s=${scenarios[$i]}
	t0=$(date +%s%N)
	rc=0
	(cd "$work" && exec timeout -k 5 "$scenario_limit" "$suite" server --url "$url" --scenario "$s") \
		>"$logs/$i.log" 2>&1 </dev/null || rc=$?
	echo "$rc" >"$work/$i.rc"
	echo $((($(date +%s%N) - t0) / 1000000)) >"$work/$i.ms"
	down=$(servers_down)
	if [ -n "$down" ]; then
		crashed[$i]=$(echo "$down" | paste -sd, - | sed 's/,/, /g')
		stop_all
		start_servers || die "the servers could not be started again after $s"
	fi
done
stop_all
took=$((SECONDS - start))

# why prints the reason a run failed, from the suite's output: a timeout and
# the ids of the checks that failed or warned.
checks() { # LOG STATUS-REGEX
	strip_ansi <"$1" | sed -n 's/^[^[]*\[\([^]]*\)\][[:space:]]*\('"$2"'\).*/\1/p' |
		sed 's/[[:space:]]*$//' | awk '!seen[$0]++' | paste -sd, - | sed 's/,/, /g'
}
why() {
	local i=$1 log=$logs/$1.log rc ids out=""
	rc=$(cat "$work/$i.rc")
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		out="timed out after $scenario_limit s"
	fi
	[ -z "${crashed[$i]:-}" ] || out="${out:+$out; }${crashed[$i]}"
	ids=$(checks "$log" 'FAILURE\|WARNING')
	[ ${#ids} -le 110 ] || ids="${ids:0:107}..."
	[ -z "$ids" ] || out="${out:+$out; }failed: $ids"
	if [ -z "$out" ]; then
		out=$(strip_ansi <"$log" | grep -m1 -i 'error' | cut -c1-110 || true)
		out=${out:-suite exit $rc}
	fi
	echo "$out"
}

width=0
for s in "${scenarios[@]}"; do [ ${#s} -le $width ] || width=${#s}; done
passed=0 failed=0 unexpected=() stale=() expected_failed=0
others=""
[ $many -eq 0 ] || others=", server-everything and demo over stdio"
case $target in
stdio) what="switchboard serve${serve_args:+ $serve_args}, everything-server over stdio${pin:+ ($pin)}$others behind it" ;;
http) what="switchboard serve${serve_args:+ $serve_args}, everything-server over HTTP${pin:+ ($pin)}$others behind it" ;;
direct) what="everything-server directly (stateful)" ;;
direct-stateless) what="everything-server directly (stateless)" ;;
esac
echo "$label: @modelcontextprotocol/conformance ${version:-?}, ${#scenarios[@]} server scenarios against $what, $took s (start ${started_in} s)"
for i in "${!scenarios[@]}"; do
	s=${scenarios[$i]} rc=$(cat "$work/$i.rc") ms=$(cat "$work/$i.ms")
	if [ "$rc" -eq 0 ] && [ -z "${crashed[$i]:-}" ]; then
		passed=$((passed + 1))
		note=""
		[ -z "${want_fail[$s]:-}" ] || { stale+=("$s"); note="STALE: listed as expected to fail"; }
		warned=$(checks "$logs/$i.log" WARNING)
		[ -z "$warned" ] || note="${note:+$note; }warned: $warned"
		printf 'PASS  %-*s  %5d ms%s\n' "$width" "$s" "$ms" "${note:+  $note}"
	else
		failed=$((failed + 1))
		# XFAIL: failed as FILE says it does. Only a failure nobody
		# expected (or, without FILE, any) reads FAIL.
		note="" verdict=FAIL
		if [ -n "${want_fail[$s]:-}" ]; then
			expected_failed=$((expected_failed + 1)); verdict=XFAIL
		elif [ -n "$expected" ]; then
			unexpected+=("$i"); note="UNEXPECTED"
		fi
		printf '%-5s %-*s  %5d ms  %s\n' "$verdict" "$width" "$s" "$ms" "${note:+$note; }$(why "$i")"
	fi
done

unknown=()
for name in "${!want_fail[@]}"; do
	found=0
	for s in "${all_scenarios[@]}"; do [ "$s" = "$name" ] && found=1 && break; done
	[ $found -eq 1 ] || unknown+=("$name")
done

show=("${unexpected[@]}")
if [ $verbose -eq 1 ]; then
	show=()
	for i in "${!scenarios[@]}"; do
		if [ "$(cat "$work/$i.rc")" -ne 0 ] || [ -n "${crashed[$i]:-}" ]; then show+=("$i"); fi
	done
fi
for i in "${show[@]}"; do
	echo; echo "---- $label: output of ${scenarios[$i]} ----"; strip_ansi <"$logs/$i.log" | cat -s
done
if [ ${#show[@]} -gt 0 ] && [ $gateway -eq 1 ]; then
	echo; echo "---- $label: switchboard's output (last 40 lines) ----"; tail -n 40 "$logs/switchboard.log"
fi

# Worded so no reader of test logs takes the expected failures for a
# failed run: the verdict is the baseline check below.
echo "$label: $passed scenarios pass, $failed do not"
if [ $many -eq 1 ]; then
	# slog's text lines, without their time: one a collision or a name left
	# out, the same after a restart counted once.
	mapfile -t clashes < <(grep -E 'level=WARN .*(collision|left out)' "$logs/switchboard.log" |
		sed 's/^time=[^[:space:]]*[[:space:]]*//' | awk '!seen[$0]++' || true)
	echo "$label: serve logged ${#clashes[@]} name collisions or names left out"
	for c in "${clashes[@]}"; do echo "$label:   $c"; done
fi
status=0
for l in "${leftovers[@]}"; do echo "$label: LEFTOVER: $l"; status=1; done
if [ -n "$expected" ]; then
	echo "$label: $expected_failed of the failures are expected ($expected)"
	baseline_verdict "$label" "$expected" || status=1
fi
[ $report -eq 1 ] && exit 0
exit $status
