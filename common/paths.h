/* The folders' defaults, and the runtime folder that holds the sockets. */
#ifndef SANDCASTLE_PATHS_H
#define SANDCASTLE_PATHS_H

#include <sys/stat.h>

#include <stddef.h>

#define CONTROL_SOCK	"control.sock"
#define KEEP_SOCK	"keep.sock"
#define GATE_SOCK	"gate.sock"

/* -c DIR, else $SANDCASTLE_CONFIG, else ~/.config/sandcastle; -1 when none can be made. */
int	path_config_dir(const char *flag, char *buf, size_t bufsz);
int	path_secrets_dir(const char *flag, char *buf, size_t bufsz);
int	path_runtime_dir(char *buf, size_t bufsz);
/* ~/.local/state/sandcastle: what the daemons leave for check to read */
int	path_state_dir(char *buf, size_t bufsz);
int	path_runtime_file(const char *name, char *buf, size_t bufsz);
/* ~ and ~/ expanded with $HOME, else the password database */
int	path_expand_home(const char *in, char *buf, size_t bufsz);
/* Makes dir 0700 when missing; -1 when it is not a folder, not ours, or others have access. */
int	path_private_dir(const char *dir, char *why, size_t whysz);
/* The same rules on a stat(2) already made: why is "<dir>: <rule>". */
int	path_private_stat(const struct stat *, const char *dir, char *why, size_t whysz);
/* For a person, after a path_*() returned -1; errno says the kind. */
const char *path_why(void);

#endif
