# A .Fl line whose word after a delimiter is no macro: mdoc makes every
# such word a flag (".Fl i , a page" renders "-i, -a -page"), which
# mandoc -Tlint does not flag.  Two flags are written ".Fl a , Fl b".
/^\.Fl / {
	after = 0
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^[,;:.)\]]$/) {
			after = 1
			continue
		}
		if (after && $i !~ /^[A-Z][a-z][a-z]?$/ && $i !~ /^\\&/) {
			printf "%s:%d: %s\n", FILENAME, FNR, $0
			break
		}
		after = 0
	}
}
