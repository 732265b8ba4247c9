#! /usr/bin/env atf-sh
# sandcastlectl show jobs [SOURCE] [-j] and show job SOURCE ID [-j]: the
# records read from data_dir (the default, under the account's home),
# newest first; a record that cannot be read is a line and exit 1, never
# a crash; a source must be configured; links are never followed.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/ctl.subr"

FMT='%-19s %-16s %-12s %-10s %-9s %7s %s\n'
HEAD=$(printf "$FMT" TIME SOURCE JOB CAPABILITY STATUS SECONDS TOKENS)

# jobs_setup: the account, its ./ctl, the good fixture (notes and
# recipes) and the data_dir its configuration names by default.
jobs_setup()
{
	sc_setup
	sc_mkctl
	sc_fixture regress/sandcastlectl/fixtures/good
	DATA=$SC_HOME/.local/share/sandcastle/jobs
	SC_ENV=TZ=UTC
	export SC_ENV
}

# record SOURCE ID META: a job folder as the core writes it.
record()
{
	mkdir -p "$DATA/$1/$2"
	printf '%s' "$3" > "$DATA/$1/$2/meta.json"
	printf '{}' > "$DATA/$1/$2/input.json"
	chown -R "$SC_USER:$SC_USER" "$SC_HOME/.local"
	chmod -R go-rwx "$SC_HOME/.local"
}

# three_records: succeeded with usage, failed, and one still running.
three_records()
{
	record notes 1 '{"source":"notes","job":1,"capability":"claude","status":"succeeded","error":"","stderr":"","started_at":"2026-05-28T20:25:40Z","finished_at":"2026-05-28T20:25:43Z","usage":{"model":"claude-sonnet-4-5","input_tokens":120,"output_tokens":7},"result":"sent"}'
	printf '{"tag":"recipes"}' > "$DATA/notes/1/output.json"
	record notes abc '{"source":"notes","job":"abc","capability":"claude","status":"failed","error":"the reply does not satisfy the schema","stderr":"","started_at":"2026-05-28T20:20:00Z","finished_at":"2026-05-28T20:20:02Z","result":"sent"}'
	record recipes 7 '{"source":"recipes","job":7,"capability":"ocr","status":"running","error":"","stderr":"","started_at":"2026-05-28T20:30:00Z","finished_at":null,"result":"pending"}'
}

atf_test_case list cleanup
list_head()
{
	atf_set "descr" "show jobs: a table newest first, one source, and -j"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
list_body()
{
	jobs_setup
	three_records
	{
		echo "$HEAD"
		printf "$FMT" "2026-05-28 20:30:00" recipes 7 ocr running - -
		printf "$FMT" "2026-05-28 20:25:40" notes 1 claude succeeded 3 120+7
		printf "$FMT" "2026-05-28 20:20:00" notes abc claude failed 2 -
	} > want
	atf_check -o file:want -e empty ./ctl show jobs
	# One source: only its own jobs.
	{
		echo "$HEAD"
		printf "$FMT" "2026-05-28 20:30:00" recipes 7 ocr running - -
	} > want-recipes
	atf_check -o file:want-recipes -e empty ./ctl show jobs recipes
	# The time is local: another zone moves it, nothing else.
	SC_ENV=TZ=Europe/Paris atf_check -o match:"^2026-05-28 22:30:00 recipes " \
	    ./ctl show jobs
	printf '%s\n' '[{"time":"2026-05-28T20:30:00Z","source":"recipes","job":7,"capability":"ocr","status":"running","seconds":null,"input_tokens":null,"output_tokens":null},{"time":"2026-05-28T20:25:40Z","source":"notes","job":1,"capability":"claude","status":"succeeded","seconds":3,"input_tokens":120,"output_tokens":7},{"time":"2026-05-28T20:20:00Z","source":"notes","job":"abc","capability":"claude","status":"failed","seconds":2,"input_tokens":null,"output_tokens":null}]' > want.json
	atf_check -o save:jobs.json -e empty ./ctl show jobs -j
	atf_check -o file:want.json cat jobs.json
	atf_check -o inline:'[{"time":"2026-05-28T20:30:00Z","source":"recipes","job":7,"capability":"ocr","status":"running","seconds":null,"input_tokens":null,"output_tokens":null}]\n' \
	    -e empty ./ctl show jobs recipes -j
	# What a program reads of it: the ids, newest first, as the source sent them.
	atf_check -o inline:"[7, 1, 'abc']\n" python3 -c \
	    'import json; print([j["job"] for j in json.load(open("jobs.json"))])'
	# The words may be cut short while they stay unambiguous.
	atf_check -o file:want -e empty ./ctl sh jobs
	atf_check -s exit:1 -o empty -e match:"^sandcastlectl: jo: unknown or ambiguous command" \
	    ./ctl show jo
}
list_cleanup()
{
	sc_cleanup
}

atf_test_case empty cleanup
empty_head()
{
	atf_set "descr" "show jobs with no data_dir yet: the header, or []"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
empty_body()
{
	jobs_setup
	atf_check -o inline:"$HEAD\n" -e empty ./ctl show jobs
	atf_check -o inline:"[]\n" -e empty ./ctl show jobs -j
	atf_check -s exit:1 -o empty -e inline:"sandcastlectl: notes/1: no such job in $DATA\n" \
	    ./ctl show job notes 1
}
empty_cleanup()
{
	sc_cleanup
}

atf_test_case unreadable cleanup
unreadable_head()
{
	atf_set "descr" "a record that cannot be read is a line and exit 1; the others are listed"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
unreadable_body()
{
	jobs_setup
	three_records
	record notes 2 '{"source":"notes","job":2,'
	record notes 3 '{"source":"notes","job":3}'
	mkdir "$DATA/notes/4" && chown "$SC_USER" "$DATA/notes/4"
	atf_check -s exit:1 -o save:out -e save:err ./ctl show jobs
	atf_check -o inline:"4\n" grep -c . out
	atf_check -o match:"^2026-05-28 20:25:40 notes +1 " cat out
	atf_check -o inline:"3\n" grep -c "the record cannot be read" err
	atf_check -o match:"^sandcastlectl: notes/2: the record cannot be read: notes/2/meta.json: not JSON: " \
	    -o match:"^sandcastlectl: notes/3: the record cannot be read: notes/3/meta.json: no capability$" \
	    -o match:"^sandcastlectl: notes/4: the record cannot be read: notes/4/meta.json: No such file or directory$" \
	    cat err
	atf_check -s exit:1 -o save:out.json -e save:err.json ./ctl show jobs -j
	atf_check -o match:'^\[\{"time":"2026-05-28T20:30:00Z",' cat out.json
	atf_check -o inline:"3\n" grep -c "the record cannot be read" err.json
	atf_check -s exit:1 -e match:"notes/2: the record cannot be read" \
	    -o inline:"input.json   $DATA/notes/2/input.json\nmeta.json    $DATA/notes/2/meta.json\n" \
	    ./ctl show job notes 2
	# -j: no meta, and the same files.
	atf_check -s exit:1 -e match:"notes/2: the record cannot be read" \
	    -o inline:"{\"meta\":null,\"files\":{\"input.json\":\"$DATA/notes/2/input.json\",\"meta.json\":\"$DATA/notes/2/meta.json\"}}\n" \
	    ./ctl show job notes 2 -j
	# Control: with them gone, the listing ends well.
	rm -rf "$DATA/notes/2" "$DATA/notes/3" "$DATA/notes/4"
	atf_check -o match:"^2026-05-28 20:20:00 notes +abc " -e empty ./ctl show jobs
}
unreadable_cleanup()
{
	sc_cleanup
}

atf_test_case sources cleanup
sources_head()
{
	atf_set "descr" "SOURCE must be a configured source"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
sources_body()
{
	jobs_setup
	three_records
	# Records of a source no longer configured are not shown, nor asked for.
	record gone 1 '{"source":"gone","job":1,"capability":"claude","status":"succeeded","error":"","stderr":"","started_at":"2026-05-28T21:00:00Z","finished_at":"2026-05-28T21:00:01Z","result":"sent"}'
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: source gone: not a configured source (sources/gone.yaml is missing)\n" \
	    ./ctl show jobs gone
	atf_check -s exit:1 -o empty -e match:"^sandcastlectl: source gone: not a configured source" \
	    ./ctl show job gone 1
	atf_check -o not-match:"gone" ./ctl show jobs
	# Control: a configured one.
	atf_check -o match:"notes +1 " ./ctl show jobs notes
	# A configuration with problems: its problems, and exit 1.
	echo "bogus: 1" >> "$SC_CONFIG/config.yaml"
	atf_check -s exit:1 -o empty -e match:"bogus" ./ctl show jobs
}
sources_cleanup()
{
	sc_cleanup
}

atf_test_case one_job cleanup
one_job_head()
{
	atf_set "descr" "show job SOURCE ID: meta.json and the paths of its files"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
one_job_body()
{
	jobs_setup
	three_records
	{
		cat "$DATA/notes/1/meta.json"; echo
		echo "input.json   $DATA/notes/1/input.json"
		echo "output.json  $DATA/notes/1/output.json"
		echo "meta.json    $DATA/notes/1/meta.json"
	} > want
	atf_check -o file:want -e empty ./ctl show job notes 1
	atf_check -s exit:1 -o empty -e inline:"sandcastlectl: notes/99: no such job in $DATA\n" \
	    ./ctl show job notes 99
	atf_check -s exit:1 -o empty -e match:"^sandcastlectl: job \.\./x: not a job id" \
	    ./ctl show job notes ../x
	atf_check -s exit:1 -o empty -e match:"not complete" ./ctl show job notes
	# A box's stderr may hold a C1 control: it is printed escaped.
	record notes c1 "$(printf '{"source":"notes","job":"c1","capability":"claude","status":"failed","error":"x","stderr":"a\302\233[2Jb","started_at":"2026-05-28T20:00:00Z","finished_at":"2026-05-28T20:00:01Z","result":"sent"}')"
	atf_check -o match:'"stderr":"a\\u009b\[2Jb"' ./ctl show job notes c1
	atf_check -o not-match:"$(printf '\302\233')" ./ctl show job notes c1
	# -j: meta.json's object and the files, one JSON document.
	atf_check -o save:one.json -e empty ./ctl show job notes 1 -j
	atf_check -o ignore python3 -m json.tool one.json
	atf_check -o inline:"1 succeeded 7 $DATA/notes/1/input.json $DATA/notes/1/output.json $DATA/notes/1/meta.json\n" \
	    python3 -c 'import json; d = json.load(open("one.json")); m = d["meta"]; f = d["files"]
print(m["job"], m["status"], m["usage"]["output_tokens"], f["input.json"], f["output.json"], f["meta.json"])'
	# -j may come before SOURCE too.
	atf_check -o file:one.json -e empty ./ctl show job -j notes 1
	# The C1 control is escaped there too, and the document stays JSON.
	atf_check -o save:c1.json ./ctl show job notes c1 -j
	atf_check -o not-match:"$(printf '\302\233')" cat c1.json
	atf_check -o inline:"True\n" python3 -c \
	    'import json; print(json.load(open("c1.json"))["meta"]["stderr"] == "a\x9b[2Jb")'
	# Control: no such job is nothing on stdout with -j either.
	atf_check -s exit:1 -o empty -e match:"no such job" ./ctl show job notes 99 -j
}
one_job_cleanup()
{
	sc_cleanup
}

atf_test_case links cleanup
links_head()
{
	atf_set "descr" "a source folder that is a link is refused, never followed"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
links_body()
{
	jobs_setup
	three_records
	mv "$DATA/notes" "$SC_HOME/elsewhere"
	ln -s "$SC_HOME/elsewhere" "$DATA/notes"
	atf_check -s exit:1 -o save:out -e inline:"sandcastlectl: data_dir/notes: is not a folder\n" \
	    ./ctl show jobs
	atf_check -o not-match:"notes" cat out
	atf_check -s exit:1 -e match:"notes/1: the record cannot be read: data_dir/notes: is not a folder" \
	    ./ctl show job notes 1
	# A job folder that is a link: not followed either.
	rm "$DATA/notes" && mkdir "$DATA/notes" && chown "$SC_USER" "$DATA/notes"
	ln -s "$SC_HOME/elsewhere/1" "$DATA/notes/1"
	atf_check -s exit:1 -o save:out2 \
	    -e match:"notes/1: the record cannot be read: data_dir/notes/1: is not a folder" \
	    ./ctl show jobs
	atf_check -o not-match:"notes" cat out2
	# Control: the folder itself, back in its place.
	rm "$DATA/notes/1" && mv "$SC_HOME/elsewhere/1" "$DATA/notes/1"
	atf_check -o match:"notes +1 " -e empty ./ctl show jobs
}
links_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case list
	atf_add_test_case empty
	atf_add_test_case unreadable
	atf_add_test_case sources
	atf_add_test_case one_job
	atf_add_test_case links
}
