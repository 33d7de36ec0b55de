/*
 * graph_export.c - the graph as people and tools read it: the statistics
 * (the paper's Table 5 figures and the window), Graphviz dot and JSON.
 * Formats: docs/graph.md.
 */
#include <inttypes.h>

#include "graph_internal.h"

void argus_graph_print_stats(const struct argus_graph_stats *st, FILE *out)
{
	fprintf(out, "events %" PRIu64 "\n", st->events);
	fprintf(out, "vertices %" PRIu64 "\n", st->vertices);
	fprintf(out, "edges %" PRIu64 "\n", st->edges);
	fprintf(out, "edges_strong %" PRIu64 "\n", st->strong);
	fprintf(out, "edges_weak %" PRIu64 "\n", st->weak);
	fprintf(out, "edges_boosted %" PRIu64 "\n", st->boosted);
	for (unsigned k = 0; k < ARGUS_EDGE_KIND_MAX; k++)
		fprintf(out, "edges_%s %" PRIu64 "\n", argus_edge_kind_name(k), st->by_kind[k]);
	for (unsigned r = 0; r < ARGUS_LEFTOUT_MAX; r++)
		fprintf(out, "left_out_%s %" PRIu64 "\n", argus_leftout_name(r), st->left_out[r]);
	for (unsigned s = 0; s < ARGUS_SPLIT_MAX; s++)
		fprintf(out, "split_%s %" PRIu64 "\n", argus_split_name(s), st->splits[s]);
	fprintf(out, "wakeups_irq %" PRIu64 "\n", st->wakeups_irq);
	fprintf(out, "wakeups_kernel %" PRIu64 "\n", st->wakeups_kernel);
	fprintf(out, "wakeups_merged %" PRIu64 "\n", st->wakeups_merged);
	fprintf(out, "wakeups_ignored %" PRIu64 "\n", st->wakeups_ignored);
	fprintf(out, "events_late %" PRIu64 "\n", st->events_late);
	fprintf(out, "source_drops %" PRIu64 "\n", st->source_drops);
	fprintf(out, "events_held %" PRIu64 "\n", st->events_held);
	fprintf(out, "vertices_held %" PRIu64 "\n", st->vertices_held);
	fprintf(out, "edges_held %" PRIu64 "\n", st->edges_held);
	fprintf(out, "bytes_held %" PRIu64 "\n", st->bytes_held);
	fprintf(out, "bytes_per_event %.1f\n",
	        st->events_held ? (double)st->bytes_held / (double)st->events_held : 0.0);
	fprintf(out, "mem_cap %" PRIu64 "\n", st->mem_cap);
	fprintf(out, "window_ns %" PRIu64 "\n", st->window_ns);
	fprintf(out, "window_held_ns %" PRIu64 "\n", st->window_held_ns);
	fprintf(out, "window_shortened %d\n", st->window_shortened);
	fprintf(out, "cap_hits %" PRIu64 "\n", st->cap_hits);
	fprintf(out, "table_drops %" PRIu64 "\n", st->table_drops);
	fprintf(out, "slices_evicted %" PRIu64 "\n", st->slices_evicted);
	fprintf(out, "evict_ns %" PRIu64 "\n", st->evict_ns);
	fprintf(out, "evict_max_ns %" PRIu64 "\n", st->evict_max_ns);
	fprintf(out, "threads %" PRIu64 "\n", st->threads);
}

static void vid_str(argus_vid id, char *buf, size_t cap)
{
	snprintf(buf, cap, "v%" PRIu32 "_%" PRIu32, (uint32_t)(id >> 32), (uint32_t)id - 1);
}

#define EDGES_MAX 256

int argus_graph_export_dot(const struct argus_graph_view *v, FILE *out)
{
	struct argus_vertex_info x;
	struct argus_edge_info e[EDGES_MAX];
	char a[32], b[32];
	fprintf(out, "digraph argus {\n  node [shape=box, fontsize=10];\n");
	for (argus_vid id = argus_graph_next_vertex(v, 0); id;
	     id = argus_graph_next_vertex(v, id)) {
		if (!argus_graph_vertex(v, id, &x))
			continue;
		vid_str(id, a, sizeof(a));
		fprintf(out,
		        "  %s [label=\"%" PRIu32 "/%" PRIu32 " %s\\n%" PRIu64 "..%" PRIu64
		        "\"%s];\n",
		        a, x.pid, x.tid, argus_split_name(x.split), x.start, x.end,
		        (x.flags & ARGUS_VF_UI) ? ", style=bold" : "");
		size_t n = argus_graph_in_edges(v, id, e, EDGES_MAX);
		for (size_t i = 0; i < n && i < EDGES_MAX; i++) {
			vid_str(e[i].src, b, sizeof(b));
			fprintf(out, "  %s -> %s [label=\"%s\", style=%s];\n", b, a,
			        argus_edge_kind_name(e[i].kind),
			        e[i].strength == ARGUS_STRONG ? "solid"
			        : e[i].strength == ARGUS_WEAK ? "dashed"
			                                      : "dotted");
		}
	}
	fprintf(out, "}\n");
	return ferror(out) ? -1 : 0;
}

int argus_graph_export_json(const struct argus_graph_view *v, FILE *out)
{
	struct argus_vertex_info x;
	struct argus_edge_info e[EDGES_MAX];
	fprintf(out, "{\"version\":1,\"now\":%" PRIu64 ",\"vertices\":[", v->now);
	bool first = true;
	for (argus_vid id = argus_graph_next_vertex(v, 0); id;
	     id = argus_graph_next_vertex(v, id)) {
		if (!argus_graph_vertex(v, id, &x))
			continue;
		fprintf(out,
		        "%s\n{\"id\":%" PRIu64 ",\"prev\":%" PRIu64 ",\"pid\":%" PRIu32
		        ",\"tid\":%" PRIu32 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
		        ",\"oncpu_ns\":%" PRIu64 ",\"flags\":%" PRIu32 ",\"split\":\"%s\""
		        ",\"wait_kind\":%u,\"wait_nr\":%u,\"wait_ret\":%" PRId32
		        ",\"wait_ns\":%" PRIu64 ",\"events\":%" PRIu32 ",\"sig_hash\":%" PRIu32
		        ",\"syscalls\":%" PRIu32 ",\"stack_first\":%" PRIu32
		        ",\"stack_last\":%" PRIu32 ",\"wait_stack\":%" PRIu32 ",\"in\":[",
		        first ? "" : ",", id, x.prev, x.pid, x.tid, x.start, x.end, x.oncpu_ns,
		        x.flags, argus_split_name(x.split), x.wait_kind, x.wait_nr, x.wait_ret,
		        x.wait_ns, x.nevents, x.sig_hash, x.nsys, x.stack_first, x.stack_last,
		        x.wait_stack);
		first = false;
		size_t n = argus_graph_in_edges(v, id, e, EDGES_MAX);
		for (size_t i = 0; i < n && i < EDGES_MAX; i++)
			fprintf(out,
			        "%s{\"src\":%" PRIu64
			        ",\"kind\":\"%s\",\"strength\":%d,\"ts\":%" PRIu64 "}",
			        i ? "," : "", e[i].src, argus_edge_kind_name(e[i].kind),
			        e[i].strength, e[i].ts);
		fprintf(out, "]}");
	}
	fprintf(out, "\n]}\n");
	return ferror(out) ? -1 : 0;
}
