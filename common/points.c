// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The probe points of the workbook: the kernel functions the seed probed
 * (kprobe and fentry doors) and the tracepoints that mark the same event
 * (tracepoint door). A stage writes one program per door and point, with
 * the function or tracepoint in its SEC(): SEC("fentry/submit_bio").
 */
#include "doors.h"
#include "stats.h"

/* block/blk-core.c: submit_bio(); tracepoint in submit_bio_noacct_nocheck() */
const struct probe_point point_submit_bio = {
	.name = "submit_bio",
	.func = "submit_bio",
	.tps = { "block_bio_queue" },
	.stat = STAT_SUBMIT,
};

/*
 * block/bio.c: bio_endio(). No tracepoint fires in it for request-based
 * disks: they end their bios in blk_update_request(), which fires
 * block_rq_complete; bio-based ones (zram, dm) fire block_bio_complete.
 */
const struct probe_point point_bio_endio = {
	.name = "bio_endio",
	.func = "bio_endio",
	.tps = { "block_rq_complete", "block_bio_complete" },
	.stat = STAT_DONE,
};

/*
 * block/blk-mq.c: blk_mq_start_request(), the driver takes the request;
 * tracepoint block_rq_issue fires inside it.
 */
const struct probe_point point_rq_start = {
	.name = "rq_start",
	.func = "blk_mq_start_request",
	.tps = { "block_rq_issue" },
	.stat = STAT_RQ_START,
};

/*
 * The end of a request, once: block/blk-mq.c blk_update_request(), where
 * the seed's blk_account_io_completion() was called and block_rq_complete
 * fires. Not __blk_mq_end_request() or blk_account_io_done(): Debian's
 * 6.1 declares them inline, so notrace, and kprobe (EINVAL) and fentry
 * (EBUSY) refuse them. A driver that ends requests in batches (NVMe)
 * calls blk_mq_end_request_batch() (5.16+) instead: the function doors
 * take it too, where it exists; block_rq_complete fires in both.
 */
const struct probe_point point_rq_done = {
	.name = "rq_done",
	.func = "blk_update_request",
	.also = "blk_mq_end_request_batch",
	.tps = { "block_rq_complete" },
	.stat = STAT_RQ_DONE,
};

/*
 * mm/filemap.c: filemap_get_pages(), where read() and splice look pages
 * up in the page cache (since 5.11; 4.19's pagecache_get_page() is no
 * longer on that path). Its tracepoint, added in 6.11, fires at the end.
 * The fexit program reads the return value with bpf_get_func_ret(), 5.17+:
 * an older kernel refuses it at load, and -a auto tries the next door.
 */
const struct probe_point point_filemap_get_pages = {
	.name = "filemap_get_pages",
	.func = "filemap_get_pages",
	.tps = { "mm_filemap_get_pages" },
	.stat = STAT_LOOKUP,
};

/* mm/filemap.c: __filemap_add_folio(), every page entering the cache. */
const struct probe_point point_filemap_add_folio = {
	.name = "filemap_add_folio",
	.func = "__filemap_add_folio",
	.tps = { "mm_filemap_add_to_page_cache" },
	.stat = STAT_ADD,
};

/*
 * Stage 11 follows one write() through these, with rq_start and rq_done
 * above. fs/read_write.c vfs_write(): write() and pwrite64()
 * call it; sys_enter and sys_exit fire for every system call, and the
 * stage compares the number.
 */
const struct probe_point point_write = {
	.name = "write",
	.func = "vfs_write",
	.tps = { "sys_enter", "sys_exit" },
	.stat = -1,
};

/*
 * mm/page-writeback.c __folio_mark_dirty(), where a clean folio of a file
 * becomes dirty (fs/buffer.c's mark_buffer_dirty() and
 * filemap_dirty_folio()); the tracepoint fires in folio_account_dirtied(),
 * which it calls (inlined).
 */
const struct probe_point point_folio_dirty = {
	.name = "folio_dirty",
	.func = "__folio_mark_dirty",
	.tps = { "writeback_dirty_folio" },
	.stat = -1,
};

/*
 * A folio leaves the page cache: mm/filemap.c __filemap_remove_folio()
 * (one folio: a hole punched, a partial truncation, reclaim) and
 * delete_from_page_cache_batch() (truncation, a batch); the tracepoint
 * fires in both.
 */
const struct probe_point point_folio_gone = {
	.name = "folio_gone",
	.func = "__filemap_remove_folio",
	.also = "delete_from_page_cache_batch",
	.tps = { "mm_filemap_delete_from_page_cache" },
	.stat = -1,
};

/*
 * block/blk-core.c submit_bio_noacct_nocheck(): a bio goes to its disk,
 * its sector already made the disk's (a partition's start added, in
 * submit_bio_noacct()); block_bio_queue fires in it, once a bio.
 */
const struct probe_point point_bio_queued = {
	.name = "bio_queue",
	.func = "submit_bio_noacct_nocheck",
	.tps = { "block_bio_queue" },
	.stat = -1,
};

/*
 * A bio too large for the disk is split (block/blk-merge.c): bio_chain()
 * chains the front part to the rest, then block_split fires.
 */
const struct probe_point point_bio_split = {
	.name = "bio_split",
	.func = "bio_chain",
	.tps = { "block_split" },
	.stat = -1,
};

/*
 * tools/iofollow's, in the tracepoint door only: no function is named,
 * so fentry and kprobe say "no such function".
 */
const struct probe_point point_syscall = {
	.name = "syscall",
	.tps = { "sys_enter", "sys_exit" },
	.stat = -1,
};

/*
 * mm/page-writeback.c folio_account_dirtied(): a clean folio made dirty;
 * mm/filemap.c __filemap_remove_folio() and delete_from_page_cache_batch()
 * (truncation): a folio leaves the cache
 */
const struct probe_point point_folio = {
	.name = "folio",
	.tps = { "writeback_dirty_folio", "mm_filemap_delete_from_page_cache" },
	.stat = -1,
};

/* block/blk-core.c submit_bio_noacct_nocheck(); block/blk-merge.c: a split */
const struct probe_point point_bio_queue = {
	.name = "bio_queue",
	.tps = { "block_bio_queue", "block_split" },
	.stat = -1,
};

/* tools/iofollow: mm/filemap.c filemap_add_folio(), a folio joins the cache */
const struct probe_point point_folio_add = {
	.name = "folio_add",
	.tps = { "mm_filemap_add_to_page_cache" },
	.stat = -1,
};

/* tools/iofollow: block/blk-mq.c blk_mq_submit_bio(), a new request for the bio */
const struct probe_point point_getrq = {
	.name = "getrq",
	.tps = { "block_getrq" },
	.stat = -1,
};

/* tools/iofollow: block/blk-merge.c, the bio joins a request already there */
const struct probe_point point_merge = {
	.name = "merge",
	.tps = { "block_bio_backmerge", "block_bio_frontmerge" },
	.stat = -1,
};

/* tools/iofollow: block/bio.c bio_endio(), a bio-based disk's bio ends */
const struct probe_point point_bio_complete = {
	.name = "bio_complete",
	.tps = { "block_bio_complete" },
	.stat = -1,
};

/* tools/iofollow: block/blk-mq.c blk_mq_start_request() */
const struct probe_point point_rq_issue = {
	.name = "rq_issue",
	.tps = { "block_rq_issue" },
	.stat = -1,
};

/* tools/iofollow: block/blk-mq.c blk_update_request(), and in a batch */
const struct probe_point point_rq_complete = {
	.name = "rq_complete",
	.tps = { "block_rq_complete" },
	.stat = -1,
};
