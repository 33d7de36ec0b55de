/* The syscall table (event/syscalls_x86_64.h): it agrees with the system's
 * numbers, names each call once, has every class the kernel side, the graph
 * and the trigger tell apart, and what is derived from it follows it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docfile.h"
#include "event.h"
#include "syscalls.h"
#include "test.h"

#ifdef __x86_64__
#include <asm/unistd_64.h>
#endif

struct row {
	const char *name, *kclass, *karg, *wait;
	unsigned nr, sysw;
	int named;
};

#define ROW_(name, nr, kclass, karg, wait, named)                                                  \
	{#name, #kclass, #karg, #wait, nr, ARGUS_SYSW_##wait, named},
static const struct row rows[] = {ARGUS_SYSCALLS_X86_64(ROW_)};
#undef ROW_
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static size_t count(size_t col, const char *token)
{
	size_t n = 0;
	for (size_t i = 0; i < NROWS; i++) {
		const char *cols[] = {rows[i].kclass, rows[i].karg, rows[i].wait};
		n += strcmp(cols[col], token) == 0;
	}
	return n;
}

static const struct row *by_name(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

TEST(numbers_are_the_kernel_headers)
{
#ifdef __x86_64__
	static const struct {
		const char *name;
		unsigned nr, sys;
	} nrs[] = {
#define NR_(name, nr, kclass, karg, wait, named) {#name, nr, __NR_##name},
	    ARGUS_SYSCALLS_X86_64(NR_)
#undef NR_
	};
	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		ASSERT_MSG(nrs[i].nr == nrs[i].sys, "%s is %u in the table, __NR_%s is %u",
		           nrs[i].name, nrs[i].nr, nrs[i].name, nrs[i].sys);
	ASSERT_EQ(ARGUS_NR_futex, __NR_futex);
#else
	SKIP("not an x86-64 machine: no <asm/unistd_64.h>");
#endif
}

TEST(names_and_numbers_are_unique_and_sorted)
{
	for (size_t i = 0; i < NROWS; i++)
		for (size_t j = i + 1; j < NROWS; j++) {
			ASSERT_MSG(strcmp(rows[i].name, rows[j].name) != 0, "%s twice",
			           rows[i].name);
			ASSERT_MSG(rows[i].nr < rows[j].nr, "%s (%u) before %s (%u)", rows[i].name,
			           rows[i].nr, rows[j].name, rows[j].nr);
		}
}

TEST(every_class_the_stages_use_is_present)
{
	/* kernel side (kext/tracer.h enum tracer_sys_class) */
	static const char *const kclasses[] = {"RECV",   "SEND",   "FUTEX", "WAIT",
	                                       "FDWAIT", "TFDSET", "CLONE"};
	for (size_t i = 0; i < sizeof(kclasses) / sizeof(kclasses[0]); i++)
		ASSERT_MSG(count(0, kclasses[i]) > 0, "no row of kernel class %s", kclasses[i]);
	/* graph wait kinds (graph.h) and the trigger's poll family */
	static const char *const waits[] = {"FUTEX", "POLL", "READ", "SLEEP", "CHILD"};
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		ASSERT_MSG(count(2, waits[i]) > 0, "no row of wait kind %s", waits[i]);
	/* calls the trigger and the graph name */
	const struct row *futex = by_name("futex"), *yield = by_name("sched_yield");
	ASSERT(futex && strcmp(futex->kclass, "FUTEX") == 0 && strcmp(futex->wait, "FUTEX") == 0);
	ASSERT(yield && strcmp(yield->kclass, "WAIT") == 0);
	ASSERT_EQ(ARGUS_NR_futex, futex->nr);
	ASSERT_EQ(ARGUS_NR_sched_yield, yield->nr);
	/* the clone family carries its flags in arg0 */
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(rows[i].kclass, "CLONE") == 0)
			ASSERT_MSG(strcmp(rows[i].karg, "NONE") != 0, "%s: clone flags",
			           rows[i].name);
}

TEST(lookups_follow_the_table)
{
	for (size_t i = 0; i < NROWS; i++) {
		const char *name = argus_syscall_name(rows[i].nr);
		if (rows[i].named)
			ASSERT_STR_EQ(name, rows[i].name);
		else
			ASSERT_MSG(!name, "%s is named", rows[i].name);
		ASSERT_EQ(argus_syscall_wait(rows[i].nr), rows[i].sysw);
	}
	ASSERT(!argus_syscall_name(2)); /* open: not in the table */
	ASSERT_EQ(argus_syscall_wait(2), ARGUS_SYSW_OTHER);
	ASSERT_EQ(argus_syscall_wait(0xffff), ARGUS_SYSW_OTHER);
}

/* docs/kext.md lists every traced call in the row of its class. */
TEST(docs_list_every_traced_call_by_class)
{
	static const struct {
		const char *kclass, *row;
	} labels[] = {
	    {"RECV", "| receive"},
	    {"SEND", "| send"},
	    {"FUTEX", "| futex"},
	    {"WAIT", "| wait without fd"},
	    {"FDWAIT", "| wait or long call on fd"},
	    {"TFDSET", "| timerfd_settime"},
	    {"CLONE", "| clone family"},
	};
	const char *doc = docfile("kext.md");
	for (size_t i = 0; i < NROWS; i++) {
		if (strcmp(rows[i].kclass, "NONE") == 0)
			continue;
		const char *line = NULL;
		for (size_t l = 0; l < sizeof(labels) / sizeof(labels[0]); l++)
			if (strcmp(labels[l].kclass, rows[i].kclass) == 0)
				line = strstr(doc, labels[l].row);
		ASSERT_MSG(line, "docs/kext.md has no row for class %s", rows[i].kclass);
		const char *cells = strstr(line + 1, "|"), *end = strchr(line, '\n');
		ASSERT(cells && end);
		/* a whole word of the calls cell: "read" is not "readv" */
		size_t len = strlen(rows[i].name);
		bool found = false;
		for (const char *p = cells; (p = strstr(p, rows[i].name)) && p < end; p += len) {
			char before = p[-1], after = p[len];
			found |= (before == ' ' || before == ',') && (after == ',' || after == ' ');
		}
		ASSERT_MSG(found, "docs/kext.md does not list %s as %s", rows[i].name,
		           rows[i].kclass);
	}
}

TEST_MAIN(TEST_ENTRY(numbers_are_the_kernel_headers),
          TEST_ENTRY(names_and_numbers_are_unique_and_sorted),
          TEST_ENTRY(every_class_the_stages_use_is_present), TEST_ENTRY(lookups_follow_the_table),
          TEST_ENTRY(docs_list_every_traced_call_by_class))
