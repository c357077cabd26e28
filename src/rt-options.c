/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Determinism options of a handle: the URI parameters prefault, lock,
 * hugepages, rt_policy, rt_prio and cpus, merged over a struct rfm_open_options, and
 * checked once at open so that a process without the right learns it then
 * rather than running its loop at normal priority unawares.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rt-internal.h"

#define PRIO_MAX_RT 99
/* Larger struct_size values are a caller's bug, not a newer header. */
#define STRUCT_SIZE_MAX 4096u

static const char *const rt_params[] = { "prefault", "lock", "hugepages", "rt_policy", "rt_prio",
					  "cpus" };
#define MEM_FLAGS_KNOWN (RFM_MEM_PREFAULT | RFM_MEM_LOCK | RFM_MEM_HUGEPAGES)

static const char *policy_name(int policy)
{
	switch (policy) {
	case RFM_RT_OTHER: return "other";
	case RFM_RT_FIFO: return "fifo";
	case RFM_RT_RR: return "rr";
	default: return "inherit";
	}
}

int rfm__rt_parse_cpus(const char *text, struct rfm_os_cpus *set)
{
	const char *p = text;

	rfm__os_cpus_zero(set);
	if (!text || !*text)
		return RFM_EINVAL;
	while (*p) {
		char *end;
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			return RFM_EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return RFM_EINVAL;
			hi = strtoul(p, &end, 10);
		}
		if (hi < lo || hi >= RFM_OS_CPUS)
			return RFM_EINVAL;
		for (unsigned long c = lo; c <= hi; c++)
			rfm__os_cpus_add(set, (unsigned int)c);
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return RFM_EINVAL;
		p = end;
	}
	return 0;
}

/* The structure's fields, checked, into @rt. */
static int from_struct(const struct rfm_open_options *o, struct rfm_rt_opts *rt)
{
	size_t have = o->struct_size < sizeof(*o) ? o->struct_size : sizeof(*o);

	if (o->struct_size < offsetof(struct rfm_open_options, reserved))
		return rfm__error(RFM_EINVAL,
				  "rfm_open_with_options: struct_size %u is too small (set it to "
				  "sizeof(struct rfm_open_options))",
				  o->struct_size);
	if (o->struct_size > STRUCT_SIZE_MAX)
		return rfm__error(RFM_EINVAL, "rfm_open_with_options: struct_size %u is absurd",
				  o->struct_size);
	if (have > offsetof(struct rfm_open_options, reserved) &&
	    !rfm__all_zero(o->reserved, have - offsetof(struct rfm_open_options, reserved)))
		return rfm__error(RFM_EINVAL,
				  "rfm_open_with_options: reserved fields are not zero (zero the "
				  "structure before setting fields)");
	/* A newer program's fields this library does not know: refuse, never ignore. */
	if (o->struct_size > sizeof(*o) &&
	    !rfm__all_zero((const uint8_t *)o + sizeof(*o), o->struct_size - sizeof(*o)))
		return rfm__error(RFM_EINVAL,
				  "rfm_open_with_options: the structure (%u bytes) sets options "
				  "this library (%zu bytes, %s) does not know",
				  o->struct_size, sizeof(*o), rfm_version_string());
	if (o->mem_flags & ~MEM_FLAGS_KNOWN)
		return rfm__error(RFM_EINVAL, "rfm_open_with_options: unknown mem_flags 0x%x",
				  o->mem_flags);
	if (o->rt_policy < RFM_RT_INHERIT || o->rt_policy > RFM_RT_RR)
		return rfm__error(RFM_EINVAL, "rfm_open_with_options: unknown rt_policy %d",
				  o->rt_policy);
	rt->mem_flags = o->mem_flags;
	rt->policy = o->rt_policy;
	rt->priority = o->rt_priority;
	rfm__os_cpus_zero(&rt->cpus);
	for (unsigned int c = 0; c < RFM_RT_CPUS_MAX && c < RFM_OS_CPUS; c++)
		if (o->cpus[c / 64] >> (c % 64) & 1) {
			rfm__os_cpus_add(&rt->cpus, c);
			rt->has_cpus = true;
		}
	return 0;
}

static int parse_flag(struct rfm_uri *uri, const char *key, uint32_t flag, uint32_t *flags)
{
	bool on = *flags & flag;
	int ret = rfm__uri_take_bool(uri, key, &on);

	if (!ret)
		*flags = on ? *flags | flag : *flags & ~flag;
	return ret;
}

static int from_uri(struct rfm_uri *uri, struct rfm_rt_opts *rt)
{
	const char *v;
	int ret;

	ret = parse_flag(uri, "prefault", RFM_MEM_PREFAULT, &rt->mem_flags);
	if (!ret)
		ret = parse_flag(uri, "lock", RFM_MEM_LOCK, &rt->mem_flags);
	if (!ret)
		ret = parse_flag(uri, "hugepages", RFM_MEM_HUGEPAGES, &rt->mem_flags);
	if (ret)
		return ret;
	if ((v = rfm__uri_take(uri, "rt_prio"))) {
		uint64_t prio;

		if (rfm__parse_u64(v, &prio) || prio < 1 || prio > PRIO_MAX_RT)
			return rfm__error(RFM_EURI, "%s: rt_prio must be 1..%d, not '%s'", uri->text,
					  PRIO_MAX_RT, v);
		rt->priority = (int)prio;
		if (rt->policy != RFM_RT_RR)
			rt->policy = RFM_RT_FIFO; /* rr only when rt_policy says so */
	}
	if ((v = rfm__uri_take(uri, "rt_policy"))) {
		if (!strcmp(v, "fifo"))
			rt->policy = RFM_RT_FIFO;
		else if (!strcmp(v, "rr"))
			rt->policy = RFM_RT_RR;
		else if (!strcmp(v, "other"))
			rt->policy = RFM_RT_OTHER;
		else
			return rfm__error(RFM_EURI, "%s: rt_policy must be fifo, rr or other, not '%s'",
					  uri->text, v);
		if (rt->policy == RFM_RT_OTHER && rfm__uri_take(uri, "rt_prio"))
			return rfm__error(RFM_EURI,
					  "%s: rt_prio needs rt_policy fifo or rr, not other",
					  uri->text);
		if (rt->policy == RFM_RT_OTHER)
			rt->priority = 0;
	}
	if ((v = rfm__uri_take(uri, "cpus"))) {
		if (rfm__rt_parse_cpus(v, &rt->cpus))
			return rfm__error(RFM_EURI,
					  "%s: cpus must be a CPU list such as 1 or 0,2-3 (CPUs below "
					  "%d), not '%s'",
					  uri->text, RFM_OS_CPUS, v);
		rt->has_cpus = true;
	}
	return 0;
}

static int check_priority(const char *uri, const struct rfm_rt_opts *rt)
{
	bool rt_policy = rt->policy == RFM_RT_FIFO || rt->policy == RFM_RT_RR;

	if (rt_policy && (rt->priority < 1 || rt->priority > PRIO_MAX_RT))
		return rfm__error(RFM_EINVAL, "%s: rt_policy %s needs a priority 1..%d, not %d",
				  uri, policy_name(rt->policy), PRIO_MAX_RT, rt->priority);
	if (!rt_policy && rt->priority)
		return rfm__error(RFM_EINVAL,
				  "%s: priority %d needs rt_policy fifo or rr, not %s", uri,
				  rt->priority, policy_name(rt->policy));
	return 0;
}

void rfm__rt_uri_ignore(struct rfm_uri *uri)
{
	for (size_t i = 0; i < RFM_ARRAY_SIZE(rt_params); i++)
		rfm__uri_take(uri, rt_params[i]);
}

int rfm__rt_options(struct rfm_node *node, struct rfm_uri *uri,
		    const struct rfm_open_options *options)
{
	struct rfm_rt_opts rt;
	int ret;

	memset(&rt, 0, sizeof(rt));
	if (options && (ret = from_struct(options, &rt)))
		return ret;
	ret = from_uri(uri, &rt);
	if (!ret)
		ret = check_priority(uri->text, &rt);
	if (ret)
		return ret;
	if (rt.mem_flags & RFM_MEM_LOCK)
		rt.mem_flags |= RFM_MEM_PREFAULT;
	if ((rt.mem_flags & RFM_MEM_HUGEPAGES) && !(node->ops->caps & RFM__CAP_HUGE_WINDOW))
		return rfm__error(RFM_ENOTSUP,
				  "%s: hugepages=1 is for shm: networks; a %s: window is the "
				  "device's memory, mapped as the driver gives it",
				  uri->text, node->ops->scheme);
	if (!rt.mem_flags && rt.policy == RFM_RT_INHERIT && !rt.has_cpus)
		return 0; /* nothing asked: the core's rt stays NULL, the fast common case */
	if (rt.has_cpus && (ret = rfm__rt_check_cpus(uri->text, &rt.cpus)))
		return ret;
	if ((rt.policy != RFM_RT_INHERIT || rt.has_cpus) && (ret = rfm__rt_probe(&rt, uri->text)))
		return ret;
	rfm__core(node)->rt = malloc(sizeof(rt));
	if (!rfm__core(node)->rt)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	*rfm__core(node)->rt = rt;
	node->mem_flags = rt.mem_flags; /* what the backend reads of them */
	return 0;
}

RFM_API int rfm_node_get_options(const rfm_node *node, struct rfm_open_options *options)
{
	struct rfm_open_options full;
	const struct rfm_rt_opts *rt;
	int ret;

	ret = rfm__sized_check("rfm_node_get_options", node, options,
			     options ? options->struct_size : 0,
			     offsetof(struct rfm_open_options, reserved));
	if (ret)
		return ret;
	memset(&full, 0, sizeof(full));
	full.attach = rfm__attach_mode(node);
	rt = rfm__core(node)->rt;
	if (rt) {
		full.mem_flags = rt->mem_flags;
		full.rt_policy = rt->policy;
		full.rt_priority = rt->priority;
		for (unsigned int c = 0; c < RFM_RT_CPUS_MAX && c < RFM_OS_CPUS; c++)
			if (rt->has_cpus && rfm__os_cpus_has(&rt->cpus, c))
				full.cpus[c / 64] |= UINT64_C(1) << (c % 64);
	}
	rfm__sized_fill(options, &full, sizeof(full));
	return 0;
}
