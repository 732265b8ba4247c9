/* No IP network: namespaces of its own, every capability dropped at once. */
#include <sys/types.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "netns.h"

static void
netns_drop_caps(void)
{
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capset, &hdr, data) == -1)
		fatal("capset: cannot drop the namespace's capabilities");
}

void
netns_enter(void)
{
	uid_t	 uid = geteuid();

	daemon_own_netns();
	netns_drop_caps();
	log_debug("in a network namespace of its own, uid %u mapped to 0",
	    (unsigned int)uid);
}
