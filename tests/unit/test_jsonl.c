// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of common/jsonl.c: trace_pipe lines as JSON objects. The
 * lines are as the kernel writes them, task names with dashes and
 * spaces included; a message of no known format is kept whole.
 */
#include <stdlib.h>
#include "jsonl.h"
#include "tap.h"

static char *conv(const char *line)
{
	static char *buf;
	size_t len = 0;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	json_trace_line(f, line);
	fclose(f);
	return buf;
}

int main(void)
{
	is_str(conv("             fio-2873    [001] d..31  1234.567890: bpf_trace_printk: "
		    "submit_bio(bio=0xffff8881042a6e00) called: 1234567890123"),
	       "{\"type\":\"event\",\"time_s\":1234.567890,\"cpu\":1,\"task\":\"fio\",\"pid\":2873,"
	       "\"event\":\"submit\",\"bio\":\"0xffff8881042a6e00\",\"time_ns\":1234567890123}\n",
	       "a submit line: header and fields");
	is_str(conv(" kworker/u4:2-events_unbound-88 [000] ..s1. 10.000001: bpf_trace_printk: "
		    "submit_bio() -> bio_endio() time duration: 62187 ns"),
	       "{\"type\":\"event\",\"time_s\":10.000001,\"cpu\":0,"
	       "\"task\":\"kworker/u4:2-events_unbound\",\"pid\":88,"
	       "\"event\":\"latency\",\"latency_ns\":62187}\n",
	       "a task name with dashes: the pid is after the last one");
	is_str(conv("    my task-7 [003] d.h1. 5.5: bpf_trace_printk: "
		    "blk_mq_end_request(rq=0xffff888100c4a000) is called!"),
	       "{\"type\":\"event\",\"time_s\":5.5,\"cpu\":3,\"task\":\"my task\",\"pid\":7,"
	       "\"event\":\"rq_end\",\"function\":\"blk_mq_end_request\","
	       "\"rq\":\"0xffff888100c4a000\"}\n",
	       "a task name with a space; {function:s} takes the function name");
	is_str(conv("  cat-9 [000] ..... 7.25: bpf_trace_printk: "
		    "blk_mq_start_request(rq=0xffff888100c4a000) is called!"),
	       "{\"type\":\"event\",\"time_s\":7.25,\"cpu\":0,\"task\":\"cat\",\"pid\":9,"
	       "\"event\":\"rq_start\",\"rq\":\"0xffff888100c4a000\"}\n",
	       "the specific pattern wins over the general one");
	is_str(conv("  cat-9 [000] ..... 7.25: bpf_trace_printk: "
		    "filemap_get_pages (ino=12 pages=0-31 hit=30 miss=2)"),
	       "{\"type\":\"event\",\"time_s\":7.25,\"cpu\":0,\"task\":\"cat\",\"pid\":9,"
	       "\"event\":\"lookup\",\"ino\":12,\"first\":0,\"last\":31,\"hit\":30,\"miss\":2}\n",
	       "a page-cache lookup: five numbers");
	is_str(conv("  cat-9 [000] ..... 7.25: bpf_trace_printk: something \"new\" <here>"),
	       "{\"type\":\"line\",\"text\":\"  cat-9 [000] ..... 7.25: bpf_trace_printk: "
	       "something \\\"new\\\" \\u003chere\\u003e\"}\n",
	       "an unknown message: the whole line, escaped");
	is_str(conv("  cat-9 [000] ..... 7.25: bpf_trace_printk: submit_bio() called: 12x"),
	       "{\"type\":\"line\",\"text\":\"  cat-9 [000] ..... 7.25: bpf_trace_printk: "
	       "submit_bio() called: 12x\"}\n",
	       "trailing text after a number: no match, kept whole");
	is_str(conv("CPU:1 [LOST 12 EVENTS]"),
	       "{\"type\":\"line\",\"text\":\"CPU:1 [LOST 12 EVENTS]\"}\n",
	       "a lost-events marker is kept as a line");
	is_str(conv("  cat-9 [000] ..... notatime: bpf_trace_printk: submit_bio() called: 1"),
	       "{\"type\":\"line\",\"text\":\"  cat-9 [000] ..... notatime: bpf_trace_printk: "
	       "submit_bio() called: 1\"}\n",
	       "a header without a time: kept whole");
	return done();
}
