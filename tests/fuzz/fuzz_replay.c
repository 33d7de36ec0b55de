/*
 * Replays files through the fuzz target without libFuzzer (any compiler):
 * `fuzz_trace_replay FILE|DIR...`, so the corpus is checked in every build.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz_trace_replay: cannot open %s\n", path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t k;
	while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			uint8_t *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				buf = NULL;
			}
			buf = b;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	/* an exact-size copy so sanitizers see any overread */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	/* and prefixes: truncation everywhere (tests/trace covers every byte) */
	for (size_t cut = 0; cut<n; cut += n> 4096 ? 61 : 1)
		LLVMFuzzerTestOneInput(exact, cut);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz_trace_replay: cannot open %s\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]))
				return 1;
			files++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			if (run_file(p)) {
				closedir(d);
				return 1;
			}
			files++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %d files\n", files);
	return files ? 0 : 1;
}
