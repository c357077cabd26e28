// SPDX-License-Identifier: GPL-2.0
/*
 * irq_prio: the SCHED_FIFO priority of rfm.ko's interrupt threads.
 *
 * The kernel starts every interrupt thread at SCHED_FIFO 50 (on
 * PREEMPT_RT every handler runs in one). A real-time loop that waits for
 * the card's events at a higher priority would be served only after
 * itself, so the thread must sit above it. The kernel gives a driver no
 * handle on its interrupt threads, so each thread sets itself when it
 * runs: at its next interrupt after the parameter changed (virtual cards
 * ring their own doorbells at probe, so a value given at load applies at
 * once). 0 leaves the threads alone: then `chrt -f -p PRIO PID` on
 * irq/N-rfm-* holds, and irq_prio would override it. A hard handler the
 * kernel forces into a thread (PREEMPT_RT, threadirqs: the 5565's shared
 * line, irq/N-rfm-5565 beside irq/N-s-rfm-5565) cannot change its own
 * priority: chrt sets that one.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <uapi/linux/sched/types.h>

#include "rfm-irq-prio.h"

static unsigned int irq_prio;

static int set_irq_prio(const char *val, const struct kernel_param *kp)
{
	unsigned int prio;
	int ret = kstrtouint(val, 0, &prio);

	if (ret)
		return ret;
	if (prio > MAX_RT_PRIO - 1)
		return -EINVAL;
	WRITE_ONCE(irq_prio, prio);
	return 0;
}

static const struct kernel_param_ops irq_prio_ops = {
	.set = set_irq_prio,
	.get = param_get_uint,
};

module_param_cb(irq_prio, &irq_prio_ops, &irq_prio, 0644);
MODULE_PARM_DESC(irq_prio,
		 "SCHED_FIFO priority 1..99 of the card's interrupt threads, taken at their next interrupt (default 0: the kernel's, 50)");

unsigned int rfm_irq_prio(void)
{
	return READ_ONCE(irq_prio);
}

void rfm_irq_thread_prio(void)
{
	unsigned int prio = READ_ONCE(irq_prio);
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};

	/*
	 * Not from hard IRQ context, nor from a handler the kernel forced into
	 * a thread (it runs with bottom halves off, and the scheduler refuses
	 * a priority change in_interrupt(): BUG_ON): those threads take chrt.
	 */
	if (!prio || in_interrupt() || !(current->flags & PF_KTHREAD))
		return;
	if (current->policy == SCHED_FIFO && current->rt_priority == prio)
		return;
	if (sched_setattr_nocheck(current, &attr))
		pr_warn_ratelimited("rfm: %s: SCHED_FIFO %u refused\n", current->comm, prio);
}
