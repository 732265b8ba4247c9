#!/bin/sh
# make fuzz: each libFuzzer target for a bounded time from its seeds in
# corpus/<name>/; a crash, a leak or a timeout fails it.
set -u

seconds=$1; shift
dir=$(cd "$(dirname "$0")" && pwd)
status=0
for f in "$@"; do
	name=${f##*/fuzz_}
	work=$dir/corpus.tmp/$name
	rm -rf "$work"; mkdir -p "$work"
	[ -d "$dir/corpus/$name" ] && cp "$dir/corpus/$name"/* "$work"/ 2>/dev/null
	echo "fuzz: $name for ${seconds}s"
	if ! "$f" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix="$dir/corpus.tmp/$name-" "$work" \
	    > "$dir/corpus.tmp/$name.log" 2>&1; then
		echo "fuzz: $name FAILED: see $dir/corpus.tmp/$name.log"
		tail -n 30 "$dir/corpus.tmp/$name.log"
		status=1
	else
		grep -E '^#[0-9]+.*DONE' "$dir/corpus.tmp/$name.log" | tail -n 1
	fi
done
exit $status
