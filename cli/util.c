/* Helpers of the subcommands that only the `argus` command uses. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../hooks/hooks.h"
#include "cli.h"

const char *cli_one_file(const char *cmd, int argc, char **argv, int optind)
{
	if (argc - optind != 1) {
		cli_error(cmd, "%s (see argus %s --help)",
		          argc - optind < 1 ? "missing FILE" : "expects one FILE", cmd);
		return NULL;
	}
	const char *path = argv[optind];
	if (!strcmp(path, "-") && isatty(STDIN_FILENO)) {
		cli_error(cmd, "standard input is a terminal, not a trace (pipe one in)");
		return NULL;
	}
	return path;
}

bool cli_hooks_lib(char *out, size_t cap)
{
	return argus_hooks_lib_path(out, cap);
}
