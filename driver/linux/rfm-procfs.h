/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/rfm2g in the vendor driver's format, so that RFM2g
 * programs that count boards there (the vendor's diagnostic utility, its
 * load script) run over rfm.ko and librfm2g. Not created when the vendor
 * driver (or anything else) already provides /proc/rfm2g.
 */
#ifndef RFM_PROCFS_H
#define RFM_PROCFS_H

#include <linux/pci.h>

/* Module init: create /proc/rfm2g unless it exists. */
void rfm_procfs_init(void);
/* Module exit: remove it if we created it. */
void rfm_procfs_exit(void);
/* A card was bound (listed in probe order, the vendor's unit order). */
void rfm_procfs_add(struct pci_dev *pdev);
/* A card is going away. */
void rfm_procfs_remove(struct pci_dev *pdev);

#endif /* RFM_PROCFS_H */
