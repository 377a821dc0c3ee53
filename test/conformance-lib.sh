# conformance-lib.sh: what test/conformance.sh (client scenarios) and
# test/conformance-serve.sh (server scenarios) read from the suite and from
# a baseline file the same way. Sourced, not run. KIND is "client" or
# "server".

# node22 prints the node first in PATH when it is Node 22 or later, which
# the suite needs; make puts the pinned one of test/node there.
node22() {
	local node major
	node=$(command -v node) || return 1
	major=$("$node" --version 2>/dev/null | sed -n 's/^v\([0-9][0-9]*\)\..*/\1/p')
	[ "${major:-0}" -ge 22 ] || return 1
	echo "$node"
}

# The suite colours its output even into a file.
strip_ansi() { sed 's/\x1b\[[0-9;]*[A-Za-z]//g'; }

# scenario_list SUITE KIND prints the KIND scenarios the suite lists, one a
# line. The listing looks like
#   Client scenarios (test against a client):
#     - initialize [2025-06-18,2025-11-25]
# Only "- name" lines count, and only under a heading that starts with KIND
# capitalised (or before any heading), so another section's scenarios do
# not leak in.
scenario_list() {
	local heading
	heading="$(tr '[:lower:]' '[:upper:]' <<<"${2:0:1}")${2:1}"
	"$1" list "--$2" | strip_ansi | awk -v heading="^$heading" '
		/^[^[:space:]].*:[[:space:]]*$/ { inkind = ($0 ~ heading); seen = 1; next }
		/^[[:space:]]*-[[:space:]]+[^[:space:]]/ {
			if (seen && !inkind) next
			sub(/^[[:space:]]*-[[:space:]]+/, ""); sub(/[[:space:]].*/, "")
			if ($0 ~ /^[A-Za-z0-9][A-Za-z0-9._\/-]*$/) print
		}'
}

# expected_list FILE KIND prints the names under `KIND:` in a baseline
# file: a block list of "- name" lines or a flow list `KIND: [a, b]`.
# Comments, quotes and other top-level keys are ignored.
expected_list() {
	awk -v kind="$2" '
		{ sub(/[[:space:]]+#.*$/, ""); sub(/^#.*$/, "") }
		/^[^[:space:]-][^:]*:/ {
			key = $0; sub(/:.*/, "", key); inkind = (key == kind)
			rest = $0; sub(/^[^:]*:[[:space:]]*/, "", rest)
			if (inkind && rest ~ /^\[/) {
				gsub(/[][]/, "", rest); n = split(rest, a, ",")
				for (i = 1; i <= n; i++) { v = a[i]; gsub(/^[[:space:]"'\'']+|[[:space:]"'\'']+$/, "", v); if (v != "") print v }
			}
			next
		}
		inkind && /^[[:space:]]*-[[:space:]]*[^[:space:]]/ {
			v = $0; sub(/^[[:space:]]*-[[:space:]]*/, "", v); gsub(/^["'\'']|["'\''][[:space:]]*$/, "", v); sub(/[[:space:]]+$/, "", v)
			if (v != "") print v
		}' "$1"
}

# baseline_verdict LABEL FILE says what the run makes of the baseline FILE,
# from the caller's arrays unexpected (indexes into scenarios), stale and
# unknown (names), and returns 1 when any of them is not empty.
baseline_verdict() {
	local label=$1 file=$2 rc=0 names=() i
	if [ ${#unexpected[@]} -gt 0 ]; then
		for i in "${unexpected[@]}"; do names+=("${scenarios[$i]}"); done
		echo "$label: failed and not expected to: ${names[*]}"
		rc=1
	fi
	if [ ${#stale[@]} -gt 0 ]; then
		echo "$label: passed but listed as expected to fail (remove from $file): ${stale[*]}"
		rc=1
	fi
	if [ ${#unknown[@]} -gt 0 ]; then
		echo "$label: listed in $file but not a scenario of this suite: ${unknown[*]}"
		rc=1
	fi
	return $rc
}
