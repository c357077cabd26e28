/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The priority of rfm.ko's interrupt threads (module parameter irq_prio).
 */
#ifndef RFM_IRQ_PRIO_H
#define RFM_IRQ_PRIO_H

#include <linux/types.h>

/* irq_prio: 0 (the kernel's own, SCHED_FIFO 50) or a SCHED_FIFO priority 1..99. */
unsigned int rfm_irq_prio(void);

/*
 * Called at the start of every interrupt thread's run (never in hard IRQ
 * context): puts the calling thread at SCHED_FIFO irq_prio when that is
 * set and the thread is not there yet.
 */
void rfm_irq_thread_prio(void);

#endif /* RFM_IRQ_PRIO_H */
