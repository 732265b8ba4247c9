#!/bin/sh
# ca.sh DIR NAME...: a test CA made at test time in DIR (ca.crt, ca.key),
# and for each NAME a certificate signed by it (NAME.crt, NAME.key) with
# NAME as its subjectAltName.  Also, for the attacks:
#   selfsigned.crt  a certificate for the first NAME that no CA signed
#   wrongname.crt   signed by the CA, for another name (wrong.example.net)
#   expired.crt     signed by the CA for the first NAME, expired in 2020
# The keys are P-256: an RSA key's primes took a suite's case tenths of
# a second each, seven keys a case.
set -eu

dir=$1; shift
first=$1
mkdir -p "$dir"
cd "$dir"
q() { "$@" >/dev/null 2>&1 || { echo "ca.sh: $* failed" >&2; exit 1; }; }

q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
    -days 2 -subj "/CN=sandcastle regress CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
leaf()
{
	# leaf FILE NAME [openssl ca flags]
	f=$1 n=$2; shift 2
	q openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$f.key" -out "$f.csr" \
	    -subj "/CN=$n" -addext "subjectAltName=DNS:$n"
	printf 'subjectAltName=DNS:%s\n' "$n" > "$f.ext"
	q openssl x509 -req -in "$f.csr" -CA ca.crt -CAkey ca.key \
	    -CAcreateserial -out "$f.crt" -days 2 -extfile "$f.ext" "$@"
}
for n in "$@"; do
	leaf "$n" "$n"
done
leaf wrongname wrong.example.net
q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout selfsigned.key \
    -out selfsigned.crt -days 2 -subj "/CN=$first" \
    -addext "subjectAltName=DNS:$first"
# An expired certificate: openssl ca takes explicit dates.
mkdir -p expired.db
: > expired.db/index.txt
echo 1000 > expired.db/serial
cat > expired.cnf <<EOC
[ca]
default_ca = ca
[ca]
dir = expired.db
database = expired.db/index.txt
serial = expired.db/serial
new_certs_dir = expired.db
certificate = ca.crt
private_key = ca.key
default_md = sha256
policy = any
copy_extensions = copy
[any]
commonName = supplied
EOC
q openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout expired.key -out expired.csr \
    -subj "/CN=$first" -addext "subjectAltName=DNS:$first"
q openssl ca -batch -config expired.cnf -in expired.csr -out expired.crt \
    -startdate 20200101000000Z -enddate 20200102000000Z -notext
chmod 0644 ./*.crt ./*.key
