/*
 * libFuzzer target for the trace reader: open any bytes, iterate every
 * event and fault, and exercise every lookup. Must never crash, leak or
 * trip a sanitizer. Corpus: tests/fuzz/corpus/trace/ (gen_trace_corpus.c).
 */
#include <stddef.h>
#include <stdint.h>

#include "event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct argus_trace_reader *r;
	struct argus_trace_error err;
	if (argus_trace_open_mem(&r, data, size, "fuzz", &err))
		return 0;
	/* a narrow range on every other input exercises chunk skipping */
	if (size & 1)
		argus_trace_set_range(r, 1000, 200000);
	const struct argus_event *e;
	uint64_t sum = 0;
	int rc;
	while ((rc = argus_trace_next(r, &e, &err)) != 0) {
		if (rc < 0) {
			sum += err.offset + (uint8_t)err.msg[0];
			continue;
		}
		sum += e->ts;
		char js[1024];
		struct argus_json_ctx ctx = {0};
		sum += argus_event_to_json(e, &ctx, js, sizeof(js));
	}
	for (uint32_t id = 0; id < 64; id++) {
		const char *s = argus_trace_string(r, id);
		if (s)
			sum += (uint8_t)s[0];
		struct argus_stack st;
		if (argus_trace_stack(r, id, &st) && st.depth)
			sum += st.ips[st.depth - 1];
	}
	const struct argus_map *m;
	const struct argus_build_id *b;
	const struct argus_symbol *sy;
	const struct argus_truth *t;
	size_t n = argus_trace_maps(r, &m);
	for (size_t i = 0; i < n; i++)
		sum += m[i].end;
	n = argus_trace_build_ids(r, &b);
	for (size_t i = 0; i < n; i++)
		sum += b[i].id[b[i].len ? b[i].len - 1 : 0];
	n = argus_trace_symbols(r, &sy);
	for (size_t i = 0; i < n; i++)
		sum += sy[i].size;
	n = argus_trace_truths(r, &t);
	for (size_t i = 0; i < n; i++)
		sum += t[i].root_end;
	sum += argus_trace_string_count(r) + argus_trace_stack_count(r);
	struct argus_trace_health h;
	argus_trace_get_health(r, &h);
	sum += h.faults + argus_trace_get_meta(r)->start_mono_ns;
	argus_trace_close(r);
	return sum == 42 ? 0 : 0; /* sum keeps the reads from being optimized out */
}
