#! /usr/bin/env atf-sh
# sandcastlectl install --images: both images of this build, made
# offline, an older build's removed, a missing ocr language refused, and
# each image holding its own capability's box and libraries alone.
# Real rootless podman as the test account (regress/lib/podman.sh).

. "$(atf_get_srcdir)/../lib/helpers.subr"

# as_user: the case's account (helpers.subr sc_account), and in as_user
# its prefix as words: atf_check runs a program, not a function.
as_user()
{
	[ -f sc_account ] && SC_USER=$(cat sc_account)
	sc_account
	P_USER=$SC_USER
	as_user="setpriv --reuid=$P_USER --regid=$P_USER --init-groups
	    --inh-caps=-all -- env -i HOME=$(getent passwd $P_USER | cut -d: -f6)
	    XDG_RUNTIME_DIR=/run/user/$(id -u $P_USER)
	    PATH=/usr/bin:/bin:/usr/sbin:/sbin LC_ALL=C.UTF-8"
}

conf_with()
{
	# $1: the languages to keep, as a grep pattern of the lines to drop
	rm -rf "$CONF"
	cp -R "$(atf_config_get checkout)/regress/config/valid-full" "$CONF"
	sed -i "$1" "$CONF/config.yaml"
	chown -R "$P_USER" "$CONF"
}

atf_test_case images cleanup
images_head()
{
	atf_set "descr" "install --images builds sandcastle-claude and sandcastle-ocr of this build and removes an older build's"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
images_body()
{
	as_user
	CONF=$(mktemp -d /tmp/sc-install.XXXXXXXX)/conf
	chmod 0755 "$(dirname "$CONF")"
	echo "$CONF" > conf_dir
	ctl=$(atf_config_get prefix)/bin/sandcastlectl
	conf_with '/- deu/d; /- chi_sim/d'
	atf_check -s exit:0 -o match:'install: images ready' -e ignore \
	    $as_user "$ctl" -c "$CONF" install --images
	build=$($as_user "$ctl" version | awk '$1 == "build" { print $2 }')
	[ -n "$build" ] || atf_fail "sandcastlectl version gives no build"
	for cap in $(sc_caps); do
		atf_check -s exit:0 $as_user podman image exists \
		    "sandcastle-$cap:$build"
	done
	# An older build: it goes on the next install, this build's stays.
	atf_check -s exit:0 -e ignore $as_user podman tag \
	    "sandcastle-claude:$build" sandcastle-claude:000000000000
	atf_check -s exit:0 -o match:'removing localhost/sandcastle-claude:000000000000' \
	    -e ignore $as_user "$ctl" -c "$CONF" install --images
	atf_check -s exit:1 -e ignore $as_user podman image exists \
	    sandcastle-claude:000000000000
	atf_check -s exit:0 $as_user podman image exists "sandcastle-claude:$build"
	# Refused: a language whose traineddata is not on the machine.
	conf_with '/- chi_sim/d'
	atf_check -s exit:1 -o ignore \
	    -e match:'ocr language deu: .*deu.traineddata is missing' \
	    $as_user "$ctl" -c "$CONF" install --images
}
images_cleanup()
{
	as_user
	[ -f conf_dir ] && rm -rf "$(dirname "$(cat conf_dir)")"
	$as_user podman rmi sandcastle-claude:000000000000 >/dev/null 2>&1
	sc_account_free
	return 0
}

atf_test_case image_files cleanup
image_files_head()
{
	atf_set "descr" "each capability's image holds its own box program alone: claude's has no Tesseract, no image library and no language, which the same listing finds in ocr's (the control)"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
image_files_body()
{
	as_user
	CONF=$(mktemp -d /tmp/sc-install.XXXXXXXX)/conf
	chmod 0755 "$(dirname "$CONF")"
	echo "$CONF" > conf_dir
	prefix=$(atf_config_get prefix)
	ctl=$prefix/bin/sandcastlectl
	conf_with '/- deu/d; /- chi_sim/d'
	atf_check -s exit:0 -o match:'install: images ready' -e ignore \
	    $as_user "$ctl" -c "$CONF" install --images
	build=$($as_user "$ctl" version | awk '$1 == "build" { print $2 }')
	out=$(dirname "$CONF")/export
	mkdir "$out" && chown "$P_USER" "$out"
	for cap in $(sc_caps); do
		$as_user podman create --name "sc-files-$cap" \
		    "sandcastle-$cap:$build" > /dev/null ||
		    atf_fail "podman create of sandcastle-$cap:$build"
		# Into the account's folder: podman would open /dev/stdout, root's.
		$as_user podman export -o "$out/$cap.tar" "sc-files-$cap"
		tar -tf "$out/$cap.tar" > "$cap.list" ||
		    atf_fail "podman export of sandcastle-$cap:$build"
		sed 's|^\./||' "$cap.list" | sort > "$cap.files"
		# Its box is its capability's program, as /sandcastle-box.
		tar -xOf "$out/$cap.tar" sandcastle-box |
		    cmp -s - "$(sc_bin "sandcastle-box-$cap")" ||
		    atf_fail "$cap's image holds another box than sandcastle-box-$cap"
	done
	ocr_only='libtesseract|liblept|libpng|libjpeg|libwebp|libtiff|libgomp|traineddata|^sandcastle/languages$'
	if grep -E "$ocr_only" claude.files; then
		atf_fail "claude's image holds ocr's files (above)"
	fi
	# The control: the same listing sees them in ocr's image.
	for f in libtesseract liblept libpng libjpeg libwebp \
	    eng.traineddata sandcastle/languages; do
		grep -q "$f" ocr.files ||
		    atf_fail "ocr's image has no $f: the listing sees nothing"
	done
}
image_files_cleanup()
{
	as_user
	[ -f conf_dir ] && rm -rf "$(dirname "$(cat conf_dir)")"
	for cap in $(sc_caps); do
		$as_user podman rm -f "sc-files-$cap" >/dev/null 2>&1
	done
	sc_account_free
	return 0
}

atf_init_test_cases()
{
	atf_add_test_case images
	atf_add_test_case image_files
}
