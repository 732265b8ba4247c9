#! /usr/bin/env atf-sh
# HACKING's recipe for a message between sandcastled's processes, done
# in a scratch copy: a question from the core to the launcher and its
# answer take the files the recipe names and no other, build, and go
# where their rows say.

. "$(atf_get_srcdir)/../lib/helpers.subr"

# scratch SRC: the tracked files of SRC, under ./copy.
scratch()
{
	mkdir copy
	(cd "$1" && git ls-files -z | xargs -0 tar cf -) |
	    (cd copy && tar xf -) || atf_fail "cannot copy the tree"
	(cd copy && git init -q && git add -A &&
	    git -c user.name=t -c user.email=t@t commit -qm base) ||
	    atf_fail "git in the copy"
}

# ping: the recipe's lines, PROC_JOB_PING asked by the core at its
# start and taken by the launcher, which answers PROC_JOB_PONG.
ping()
{
	sed -i 's/^\tPROC_MSG_END\t/\tPROC_JOB_PING,\n\tPROC_JOB_PONG,\n&/' \
	    copy/sandcastled/proto.h
	sed -i '/^\tROW(ROUND_DONE,/i\
	ROW(JOB_PING, 0, 0, 0, CORE, 0, launcher_ping, PROC_LAUNCHER,\
	    launcher_standin_ping),\
	ROW(JOB_PONG, U32, U32, 0, LAUNCHER, ASKED(JOB_PING), NULL,\
	    ROUTE_ASKER, NULL),' copy/sandcastled/proctab.c
	cat >> copy/sandcastled/launcher.c <<'EOF'

void
launcher_ping(void *proc, struct msg *m)
{
	uint32_t	 up = 1;

	if (msg_compose(launcher_chan, PROC_JOB_PONG, m->id, -1, &up,
	    sizeof(up)) == -1)
		fatal("a pong to the parent");
}

int
launcher_standin_ping(struct msgchan *chan, uint32_t id)
{
	uint32_t	 up = 0;

	return msg_compose(chan, PROC_JOB_PONG, id, -1, &up, sizeof(up));
}
EOF
	sed -i 's/^int\t\t launcher_timer(void);$/&\nvoid\t\t launcher_ping(void *, struct msg *);\nint\t\t launcher_standin_ping(struct msgchan *, uint32_t);/' \
	    copy/sandcastled/launcher.h
	sed -i 's/^static void\t core_take_claim(void \*, struct msg \*);$/&\nstatic void\t core_ping(void);/' \
	    copy/sandcastled/core.c
	sed -i '/^core_ready(void)$/,/^}$/s/^\tcore_wake = core_now();$/&\n\tcore_ping();/' \
	    copy/sandcastled/core.c
	cat >> copy/sandcastled/core.c <<'EOF'

static void
core_pong(void *arg, struct msg *m)
{
	log_info("the launcher answered the ping");
}

static void
core_ping(void)
{
	(void)ask_send(core.chan, PROC_JOB_PING, -1, NULL, 0, core_pong, NULL);
}
EOF
}

atf_test_case question
question_head()
{
	atf_set "descr" "a question from the core to the launcher and its answer, added in a scratch copy by HACKING's recipe alone (proto.h, proctab.c, the asker's core.c, the taker's launcher.c and launcher.h), build, are derived into the rows' takes and sends, and go where the rows say: the launcher answers the ping, the core takes the pong; control: the pong to a ping never asked ends the core"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "cc git"
	atf_set "timeout" "900"
}
question_body()
{
	src=$(sc_srcdir)
	scratch "$src"
	ping
	(cd copy && git diff --name-only) > touched
	atf_check -o inline:"sandcastled/core.c\nsandcastled/launcher.c\nsandcastled/launcher.h\nsandcastled/proctab.c\nsandcastled/proto.h\n" \
	    cat touched
	cp "$src/regress/meta/recipe.c" copy/regress/meta/
	make -s -C copy -j2 sandcastled/libsandcastled.a common/libcommon.a \
	    > build.out 2>&1 || { cat build.out; atf_fail "the copy does not build"; }
	flags=$(make -s -C copy --no-print-directory \
	    --eval 'sc-f: ; @echo $(ALL_CPPFLAGS) $(ALL_CFLAGS)' sc-f)
	libs=$(make -s -C copy --no-print-directory \
	    --eval 'sc-l: ; @echo $(LIBS)' sc-l)
	(cd copy && cc $flags -o recipe regress/meta/recipe.c \
	    sandcastled/libsandcastled.a common/libcommon.a $libs) ||
	    atf_fail "recipe.c does not build against the copy"
	atf_check -o match:'^rows: launcher takes PROC_JOB_PING, core takes PROC_JOB_PONG$' \
	    -o match:'^launcher: PROC_JOB_PONG 1$' \
	    -o match:'^core: asked PROC_JOB_PING$' \
	    -e match:'the launcher answered the ping' \
	    -e match:'PROC_JOB_PONG \(id 999\), which answers no question' \
	    env XDG_RUNTIME_DIR=/nonexistent ./copy/recipe
}

atf_init_test_cases()
{
	atf_add_test_case question
}
