/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The overhead lab's start map (bench/stage03_array_map; README.md there):
 * what was known when an I/O started (its time ...), found again by the
 * I/O's address when it ends. Stages 03-07 use a BPF_MAP_TYPE_HASH.
 *
 * This one is a hash table in a BPF array map. On the workbook's host an
 * insert into a BPF hash map costs ~170 ns (a free element off a per-CPU
 * list, a bucket lock with interrupts off) and the delete ~75 ns more:
 * with the lookup, ~300 of stage 03's 550 ns per I/O and 5 points of IOPS
 * on a fast disk (docs/overhead.md). An array lookup is a few inlined
 * instructions and takes no lock; the price is that the program does the
 * hashing itself:
 *
 *   - an address hashes to a slot; if that one is taken, the next of
 *     START_PROBES slots (linear probing). None free: the map is full.
 *   - a slot is claimed with an atomic compare-and-swap of its key (two
 *     CPUs may start I/O at once) and freed by swapping it back to 0.
 *
 * The value type starts with "__u64 key" (0 = free slot); the program
 * declares the map itself:
 *
 *	struct {
 *		__uint(type, BPF_MAP_TYPE_ARRAY);
 *		__uint(max_entries, START_SLOTS);
 *		__type(key, u32);
 *		__type(value, struct start_rec);
 *	} start SEC(".maps");
 */
#ifndef __START_BPF_H
#define __START_BPF_H

/* 8 slots per I/O in flight at 4096 in flight: a full row of probes is rare. */
#define START_BITS	15
#define START_SLOTS	(1U << START_BITS)
#define START_PROBES	8

/*
 * A kernel address as a plain number. fentry and tp_btf programs get
 * BTF-typed pointers, on which the verifier allows adding and subtracting
 * but no multiplying (the hash does); a round trip through memory makes
 * it a number. The per-CPU word is shared: an interrupt (or, for fentry,
 * a task that preempts us) can run another of our programs between the
 * store and the load. So the number is checked against the pointer, and
 * the store tried again if another program's pointer came back. The
 * check is in asm: in C, clang would know the two are equal and return
 * the pointer itself. 0 (never in practice) counts as a full map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} start_scratch SEC(".maps");

static __always_inline __u64 start_key(const void *p)
{
	__u32 zero = 0;
	volatile __u64 *v = bpf_map_lookup_elem(&start_scratch, &zero);
	__u64 key;
	int i;

	if (!v)
		return 0;
	for (i = 0; i < 3; i++) {
		*v = (__u64)p;
		key = *v;
		asm volatile("if %[k] == %[p] goto +1; %[k] = 0"
			     : [k] "+r"(key) : [p] "r"(p));
		if (key)
			return key;
	}
	return 0;
}

/* Fibonacci hashing: the top bits of key * 2^64/phi spread aligned addresses. */
static __always_inline __u32 start_slot(__u64 key, int probe)
{
	return ((__u32)((key * 0x9E3779B97F4A7C15ULL) >> (64 - START_BITS)) + probe) &
	       (START_SLOTS - 1);
}

/*
 * The slot of key to fill in: the one it still holds (*stale = true: a
 * start whose end was never seen, now replaced), else a free one claimed
 * for it. NULL when all its slots are taken (map full). One pass looks
 * for both (the key may sit past a free slot: slots before it were freed
 * after it was claimed); a second pass is only for a lost race, when
 * another CPU claimed the free slot first.
 */
static __always_inline void *start_claim(void *map, __u64 key, bool *stale)
{
	__u64 *slot, *free = NULL;
	__u32 idx;
	int i;

	*stale = false;
	if (!key)
		return NULL;
	for (i = 0; i < START_PROBES; i++) {
		idx = start_slot(key, i);
		slot = bpf_map_lookup_elem(map, &idx);
		if (!slot)
			continue;
		if (*slot == key) {
			*stale = true;
			return slot;
		}
		if (!free && !*slot)
			free = slot;
	}
	if (free && !__sync_val_compare_and_swap(free, 0, key))
		return free;
	for (i = 0; i < START_PROBES; i++) {
		idx = start_slot(key, i);
		slot = bpf_map_lookup_elem(map, &idx);
		if (slot && !*slot && !__sync_val_compare_and_swap(slot, 0, key))
			return slot;
	}
	return NULL;
}

/* The slot holding key, or NULL: no start was recorded. */
static __always_inline void *start_find(void *map, __u64 key)
{
	__u64 *slot;
	__u32 idx;
	int i;

	if (!key)
		return NULL;
	for (i = 0; i < START_PROBES; i++) {
		idx = start_slot(key, i);
		slot = bpf_map_lookup_elem(map, &idx);
		if (slot && *slot == key)
			return slot;
	}
	return NULL;
}

/*
 * Free key's slot once its fields are read: an atomic compare-and-swap,
 * so the reads come first on every CPU architecture (a plain store could
 * pass them on arm64, and another CPU could claim the slot too early).
 */
static __always_inline void start_release(void *slot, __u64 key)
{
	__sync_val_compare_and_swap((__u64 *)slot, key, 0);
}

#endif /* __START_BPF_H */
