# libs.awk: the library each @<name>-dev line of the reference's package
# list stands for, as one release names it (image.sh): the dependency of
# <name>-dev named <name>..., not itself a -dev (whose own is followed
# then).  The release's Packages index on standard input; WANT the -dev
# names.  A name the index lacks prints as "?<name> ...".
BEGIN { RS = ""; FS = "\n" }
{
	pkg = dep = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^Package: /) pkg = substr($i, 10)
		else if ($i ~ /^Depends: /) dep = substr($i, 10)
	}
	if (pkg != "" && !(pkg in deps)) deps[pkg] = dep
}
function lib(dev, depth,    stem, n, a, i, d, sub_) {
	stem = dev; sub(/-dev$/, "", stem)
	n = split(deps[dev], a, /, */)
	sub_ = ""
	for (i = 1; i <= n; i++) {
		d = a[i]; sub(/ *[|(].*/, "", d); sub(/:any$/, "", d)
		if (index(d, stem) != 1) continue
		if (d !~ /-dev$/) return d
		if (sub_ == "") sub_ = d
	}
	if (sub_ != "" && depth < 3) return lib(sub_, depth + 1)
	return ""
}
END {
	n = split(WANT, w, " ")
	for (i = 1; i <= n; i++) {
		if (!(w[i] in deps)) { print "?" w[i] " has no package"; continue }
		l = lib(w[i], 0)
		print (l == "" ? "?" w[i] " depends on no library of its name" : l)
	}
}
