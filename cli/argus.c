/* argus: the command. Dispatches to builtin-*.c (one file per subcommand). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct argus_cmd commands[] = {
#define ARGUS_CMD(name, summary) {#name, cmd_##name, summary},
#include "commands.def"
#undef ARGUS_CMD
};

/* The command line's name of a table entry: '_' is '-' (trace_more). */
static const char *cmd_name(const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", name);
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = '-';
	return buf;
}

static void usage(FILE *f)
{
	char n[32];
	fprintf(f, "usage: argus COMMAND [ARGS]\n\n"
	           "argus is an always-on causal tracer for desktop applications.\n\n"
	           "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", cmd_name(commands[i].name, n, sizeof(n)),
		        commands[i].summary);
	fprintf(f, "\n`argus COMMAND --help` describes each; exit codes: docs/cli.md\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return ARGUS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return ARGUS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("argus %s\n", ARGUS_VERSION);
		return ARGUS_EXIT_OK;
	}
	char n[32];
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], cmd_name(commands[i].name, n, sizeof(n))))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "argus: unknown command '%s' (see argus --help)\n", argv[1]);
	return ARGUS_EXIT_USAGE;
}
